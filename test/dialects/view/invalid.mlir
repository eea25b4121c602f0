// RUN: aot-opt %s --split-input-file --verify-diagnostics

func.func @view_numel(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.view' op shape [4, 2] is invalid for input of size 6}}
  %0 = view.view %x {shape = [4, 2]} : tensor<2x3xf32> -> tensor<4x2xf32>
  return
}

// -----

func.func @view_two_inferred(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.view' op only one dimension can be inferred (-1)}}
  %0 = view.view %x {shape = [-1, -1]} : tensor<2x3xf32> -> tensor<6x1xf32>
  return
}

// -----

func.func @view_missing_shape(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.view' op requires attribute 'shape'}}
  %0 = view.view %x : tensor<2x3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @reshape_numel(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.reshape' op shape [5] is invalid for input of size 6}}
  %0 = view.reshape %x {shape = [5]} : tensor<2x3xf32> -> tensor<5xf32>
  return
}

// -----

func.func @permute_repeat(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.permute' op 'dims' is not a permutation: 0 repeats}}
  %0 = view.permute %x {dims = [0, 0]} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @permute_length(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.permute' op 'dims' must list 2 dimensions, got 3}}
  %0 = view.permute %x {dims = [0, 1, 2]} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_range(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.transpose' op dimension 2 is out of range for a tensor of rank 2}}
  %0 = view.transpose %x {dim0 = 0, dim1 = 2} : tensor<2x3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @t_rank(%x: tensor<2x3x4xf32>) {
  // expected-error@+1 {{'view.t' op t() expects a tensor with <= 2 dimensions, but self is 3D}}
  %0 = view.t %x : tensor<2x3x4xf32> -> tensor<4x3x2xf32>
  return
}

// -----

func.func @t_result(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.t' op inferred type(s) 'tensor<3x2xf32>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  %0 = view.t %x : tensor<2x3xf32>
  return
}

// -----

func.func @expand_fewer(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.expand' op the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)}}
  %0 = view.expand %x {shape = [3]} : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @expand_non_singleton(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'view.expand' op the expanded size of the tensor (4) must match the existing size (2) at non-singleton dimension 0}}
  %0 = view.expand %x {shape = [4, 3]} : tensor<2x3xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @expand_leading_inferred(%x: tensor<3xf32>) {
  // expected-error@+1 {{'view.expand' op the expanded size -1 is not allowed in a leading, non-existing dimension}}
  %0 = view.expand %x {shape = [-1, 3]} : tensor<3xf32> -> tensor<1x3xf32>
  return
}

// -----

func.func @slice_step(%x: tensor<4xf32>) {
  // expected-error@+1 {{'view.slice' op slice step must be positive, got 0}}
  %0 = view.slice %x {dim = 0, step = 0} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_scalar(%x: tensor<f32>) {
  // expected-error@+1 {{'view.slice' op slice() cannot be applied to a 0-dim tensor}}
  %0 = view.slice %x {dim = 0} : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @select_index(%x: tensor<4x2xf32>) {
  // expected-error@+1 {{'view.select' op index 4 is out of range for dimension 0 of size 4}}
  %0 = view.select %x {dim = 0, index = 4} : tensor<4x2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @select_scalar(%x: tensor<f32>) {
  // expected-error@+1 {{'view.select' op select() cannot be applied to a 0-dim tensor}}
  %0 = view.select %x {dim = 0, index = 0} : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @squeeze_range(%x: tensor<1x2xf32>) {
  // expected-error@+1 {{'view.squeeze' op dimension 2 is out of range for a tensor of rank 2}}
  %0 = view.squeeze %x {dim = 2} : tensor<1x2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @unsqueeze_range(%x: tensor<2xf32>) {
  // expected-error@+1 {{'view.unsqueeze' op dimension 3 is out of range for a tensor of rank 1}}
  %0 = view.unsqueeze %x {dim = 3} : tensor<2xf32> -> tensor<2x1xf32>
  return
}

// -----

func.func @diagonal_rank(%x: tensor<2xf32>) {
  // expected-error@+1 {{'view.diagonal' op diagonal requires a tensor with at least 2 dimensions, got 1}}
  %0 = view.diagonal %x : tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @diagonal_same_dims(%x: tensor<2x2xf32>) {
  // expected-error@+1 {{'view.diagonal' op diagonal dimensions cannot be identical 1, 1}}
  %0 = view.diagonal %x {dim1 = 1, dim2 = -1} : tensor<2x2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @as_strided_lengths(%x: tensor<4xf32>) {
  // expected-error@+1 {{'view.as_strided' op mismatch in length of strides and shape (1 vs 2)}}
  %0 = view.as_strided %x {size = [2, 2], stride = [1]} : tensor<4xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @as_strided_negative(%x: tensor<4xf32>) {
  // expected-error@+1 {{'view.as_strided' op as_strided sizes, strides and offset must be non-negative}}
  %0 = view.as_strided %x {size = [2], stride = [-1]} : tensor<4xf32> -> tensor<2xf32>
  return
}

// -----

func.func @unbind_scalar(%x: tensor<f32>) {
  // expected-error@+1 {{'view.unbind' op unbind() cannot be applied to a 0-dim tensor}}
  %0 = view.unbind %x : tensor<f32> -> tensor<f32>
  return
}

// -----

func.func @unbind_count(%x: tensor<3x2xf32>) {
  // expected-error@+1 {{'view.unbind' op inferred type(s) 'tensor<2xf32>, tensor<2xf32>, tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>, tensor<2xf32>'}}
  %0:2 = view.unbind %x : tensor<3x2xf32> -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @split_sum(%x: tensor<5xf32>) {
  // expected-error@+1 {{'view.split' op split sizes [2, 2] must be non-negative and sum to the size of dimension 0 (5)}}
  %0:2 = view.split %x {sizes = [2, 2]} : tensor<5xf32> -> (tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @slice_scatter_shape(%b: tensor<4x6xf32>, %s: tensor<4x3xf32>) {
  // expected-error@+1 {{'view.slice_scatter' op src shape [4, 3] does not match the viewed region's shape [4, 2]}}
  %0 = view.slice_scatter %b, %s {dim = 1, start = 0, end = 2} : tensor<4x6xf32>, tensor<4x3xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @select_scatter_dtype(%b: tensor<4x6xf32>, %s: tensor<6xf64>) {
  // expected-error@+1 {{'view.select_scatter' op src must have element type f32, got f64}}
  %0 = view.select_scatter %b, %s {dim = 0, index = 0} : tensor<4x6xf32>, tensor<6xf64> -> tensor<4x6xf32>
  return
}

// -----

func.func @as_strided_scatter_bounds(%b: tensor<4xf32>, %s: tensor<3xf32>) {
  // expected-error@+1 {{'view.as_strided_scatter' op the strided region reaches element 4, outside the 4 elements of base}}
  %0 = view.as_strided_scatter %b, %s {size = [3], stride = [2]} : tensor<4xf32>, tensor<3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @diagonal_scatter_shape(%b: tensor<3x3xf32>, %s: tensor<2xf32>) {
  // expected-error@+1 {{'view.diagonal_scatter' op src shape [2] does not match the viewed region's shape [3]}}
  %0 = view.diagonal_scatter %b, %s : tensor<3x3xf32>, tensor<2xf32> -> tensor<3x3xf32>
  return
}
