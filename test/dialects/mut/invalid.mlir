// RUN: aot-opt %s --split-input-file --verify-diagnostics

func.func @copy_broadcast(%x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error@+1 {{'mut.copy_' op tensor<3xf32> cannot be broadcast to the destination's shape [2]}}
  mut.copy_ %x, %y : tensor<2xf32>, tensor<3xf32>
  return
}

// -----

func.func @add_widens(%x: tensor<3xf32>, %y: tensor<2x3xf32>) {
  // expected-error@+1 {{'mut.add_' op tensor<2x3xf32> cannot be broadcast to the destination's shape [3]}}
  mut.add_ %x, %y : tensor<3xf32>, tensor<2x3xf32>
  return
}

// -----

func.func @add_bool(%x: tensor<3xi1>) {
  // expected-error@+1 {{'mut.add_' op does not support i1 operands}}
  mut.add_ %x, %x : tensor<3xi1>
  return
}

// -----

func.func @sub_dtypes(%x: tensor<3xf32>, %y: tensor<3xf64>) {
  // expected-error@+1 {{'mut.sub_' op requires the same element type for all operands, got f32 and f64}}
  mut.sub_ %x, %y : tensor<3xf32>, tensor<3xf64>
  return
}

// -----

func.func @div_int(%x: tensor<3xi64>) {
  // expected-error@+1 {{'mut.div_' op div_ requires a floating point element type, got i64}}
  mut.div_ %x, %x : tensor<3xi64>
  return
}

// -----

func.func @exp_int(%x: tensor<3xi64>) {
  // expected-error@+1 {{'mut.exp_' op this op requires a floating point element type, got i64}}
  mut.exp_ %x : tensor<3xi64>
  return
}

// -----

func.func @relu_bool(%x: tensor<3xi1>) {
  // expected-error@+1 {{'mut.relu_' op does not support i1 operands}}
  mut.relu_ %x : tensor<3xi1>
  return
}

// -----

func.func @clamp_bounds(%x: tensor<3xf32>) {
  // expected-error@+1 {{'mut.clamp_' op requires at least one of 'min' and 'max'}}
  mut.clamp_ %x : tensor<3xf32>
  return
}

// -----

func.func @fill_value(%x: tensor<3xf32>) {
  // expected-error@+1 {{'mut.fill_' op requires attribute 'value'}}
  mut.fill_ %x : tensor<3xf32>
  return
}

// -----

func.func @data_mutation_result(%x: tensor<3xf32>) {
  // expected-error@+1 {{'mut.zero_' op expected 0 results, but found 1}}
  %0 = "mut.zero_"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @index_put_scalar(%x: tensor<f32>, %i: tensor<1xi64>, %v: tensor<f32>) {
  // expected-error@+1 {{'mut.index_put_' op cannot index a 0-d tensor}}
  mut.index_put_ %x, %i, %v : tensor<f32>, tensor<1xi64>, tensor<f32>
  return
}

// -----

func.func @index_put_index(%x: tensor<4x2xf32>, %i: tensor<2x2xi64>, %v: tensor<2xf32>) {
  // expected-error@+1 {{'mut.index_put_' op index must be a 1-D integer tensor, got tensor<2x2xi64>}}
  mut.index_put_ %x, %i, %v : tensor<4x2xf32>, tensor<2x2xi64>, tensor<2xf32>
  return
}

// -----

func.func @index_put_values(%x: tensor<4x2xf32>, %i: tensor<3xi64>, %v: tensor<2x2xf32>) {
  // expected-error@+1 {{'mut.index_put_' op values of shape [2, 2] cannot be broadcast to the indexed shape [3, 2]}}
  mut.index_put_ %x, %i, %v : tensor<4x2xf32>, tensor<3xi64>, tensor<2x2xf32>
  return
}

// -----

func.func @index_put_dtype(%x: tensor<4x2xf32>, %i: tensor<3xi64>, %v: tensor<2xf64>) {
  // expected-error@+1 {{'mut.index_put_' op values must have element type f32, got f64}}
  mut.index_put_ %x, %i, %v : tensor<4x2xf32>, tensor<3xi64>, tensor<2xf64>
  return
}

// -----

func.func @t_rank(%x: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'mut.t_' op t() expects a tensor with <= 2 dimensions, but self is 3D}}
  %0 = mut.t_ %x : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'mut.transpose_' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  %0 = mut.transpose_ %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32>
  return
}

// -----

func.func @resize_negative(%x: tensor<2xf32>) {
  // expected-error@+1 {{'mut.resize_' op sizes must be non-negative, got [-1]}}
  %0 = mut.resize_ %x {size = [-1]} : tensor<2xf32> -> tensor<1xf32>
  return
}

// -----

func.func @set_dtype(%x: tensor<2xf32>, %y: tensor<2xf64>) {
  // expected-error@+1 {{'mut.set_' op set_ requires the same element type, got f32 and f64}}
  %0 = mut.set_ %x, %y : tensor<2xf32>, tensor<2xf64> -> tensor<2xf64>
  return
}

// -----

/// After a metadata mutation the old value is stale.
func.func @use_after_metadata_mutation(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error@+1 {{'mut.t_' op changes the metadata of its operand, which is used afterwards; later ops must use the result}}
  %0 = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  // expected-note@+1 {{later use here}}
  %1 = tensor.neg %x : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
