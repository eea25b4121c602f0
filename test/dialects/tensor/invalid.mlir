// RUN: aot-opt %s --split-input-file --verify-diagnostics

func.func @add_bool(%x: tensor<2xi1>) {
  // expected-error@+1 {{'tensor.add' op does not support i1 operands}}
  %0 = tensor.add %x, %x : tensor<2xi1>
  return
}

// -----

func.func @div_int2(%x: tensor<2xi64>) {
  // expected-error@+1 {{'tensor.div' op this op requires a floating point element type, got i64}}
  %0 = tensor.div %x, %x : tensor<2xi64>
  return
}

// -----

func.func @compare_mixed(%x: tensor<2xi64>, %y: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.lt' op requires the same element type for all operands, got i64 and f32}}
  %0 = tensor.lt %x, %y : tensor<2xi64>, tensor<2xf32> -> tensor<2xi1>
  return
}

// -----

func.func @compare_result(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.eq' op inferred type(s) 'tensor<2xi1>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  %0 = tensor.eq %x, %x : tensor<2xf32>
  return
}

// -----

func.func @where_cond(%c: tensor<2xf32>, %x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.where' op condition must have element type i1, got f32}}
  %0 = tensor.where %c, %x, %x : tensor<2xf32>
  return
}

// -----

func.func @where_branches(%c: tensor<2xi1>, %x: tensor<2xf32>, %y: tensor<2xf64>) {
  // expected-error@+1 {{'tensor.where' op requires the same element type for both branches, got f32 and f64}}
  %0 = tensor.where %c, %x, %y : tensor<2xi1>, tensor<2xf32>, tensor<2xf64> -> tensor<2xf32>
  return
}

// -----

func.func @where_broadcast(%c: tensor<3xi1>, %x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.where' op operands are not broadcast-compatible: [3] and [2]}}
  %0 = tensor.where %c, %x, %x : tensor<3xi1>, tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @fma_int(%x: tensor<2xi64>) {
  // expected-error@+1 {{'tensor.fma' op tensor.fma requires a floating point element type, got i64}}
  %0 = tensor.fma %x, %x, %x : tensor<2xi64>
  return
}

// -----

func.func @fma_types(%x: tensor<2xf32>, %y: tensor<2xf64>) {
  // expected-error@+1 {{'tensor.fma' op requires the same element type for all operands, got f32 and f64}}
  %0 = tensor.fma %x, %x, %y : tensor<2xf32>, tensor<2xf32>, tensor<2xf64> -> tensor<2xf32>
  return
}

// -----

func.func @fma_broadcast(%x: tensor<2xf32>, %y: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.fma' op operands are not broadcast-compatible: [2] and [3]}}
  %0 = tensor.fma %x, %x, %y : tensor<2xf32>, tensor<2xf32>, tensor<3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @exp_int(%x: tensor<2xi32>) {
  // expected-error@+1 {{'tensor.exp' op this op requires a floating point element type, got i32}}
  %0 = tensor.exp %x : tensor<2xi32>
  return
}

// -----

func.func @neg_bool(%x: tensor<2xi1>) {
  // expected-error@+1 {{'tensor.neg' op does not support i1 operands}}
  %0 = tensor.neg %x : tensor<2xi1>
  return
}

// -----

func.func @gelu_mode(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.gelu' op attribute 'approximate' must be "none" or "tanh", got "erf"}}
  %0 = tensor.gelu %x {approximate = "erf"} : tensor<2xf32>
  return
}

// -----

func.func @clamp_no_bounds(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.clamp' op requires at least one of 'min' and 'max'}}
  %0 = tensor.clamp %x : tensor<2xf32>
  return
}

// -----

func.func @clamp_bad_kind(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.clamp' op attribute 'min' expects a float}}
  %0 = tensor.clamp %x {min = "low"} : tensor<2xf32>
  return
}

// -----

func.func @cast_shape(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.cast' op result shape [3] must equal operand shape [2]}}
  %0 = tensor.cast %x : tensor<2xf32> -> tensor<3xi64>
  return
}

// -----

func.func @sum_dim_range(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.sum' op dimension 2 is out of range for a tensor of rank 2 (expected [-2, 1])}}
  %0 = tensor.sum %x {dims = [2]} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @sum_dim_twice(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.sum' op dimension -1 appears more than once in 'dims'}}
  %0 = tensor.sum %x {dims = [1, -1]} : tensor<2x3xf32> -> tensor<2xf32>
  return
}

// -----

func.func @sum_result(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.sum' op inferred type(s) 'tensor<2xf32>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  %0 = tensor.sum %x {dims = [1]} : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @mean_int(%x: tensor<2xi64>) {
  // expected-error@+1 {{'tensor.mean' op mean requires a floating point element type, got i64}}
  %0 = tensor.mean %x : tensor<2xi64> -> tensor<i64>
  return
}

// -----

func.func @var_int(%x: tensor<2xi64>) {
  // expected-error@+1 {{'tensor.var' op var requires a floating point element type, got i64}}
  %0 = tensor.var %x : tensor<2xi64> -> tensor<i64>
  return
}

// -----

func.func @argmax_dim(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.argmax' op dimension -3 is out of range for a tensor of rank 2}}
  %0 = tensor.argmax %x {dim = -3} : tensor<2x3xf32> -> tensor<2xi64>
  return
}

// -----

func.func @remainder_int(%x: tensor<3xi64>) {
  // expected-error@+1 {{'tensor.remainder' op this op requires a floating point element type, got i64}}
  %0 = tensor.remainder %x, %x : tensor<3xi64>
  return
}

// -----

func.func @cumsum_dim(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.cumsum' op dimension 2 is out of range for a tensor of rank 2}}
  %0 = tensor.cumsum %x {dim = 2} : tensor<2x3xf32>
  return
}

// -----

func.func @argsort_dim(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.argsort' op dimension -3 is out of range for a tensor of rank 2}}
  %0 = tensor.argsort %x {dim = -3} : tensor<2x3xf32> -> tensor<2x3xi64>
  return
}

// -----

func.func @argsort_bool(%x: tensor<3xi1>) {
  // expected-error@+1 {{'tensor.argsort' op argsort of booleans is not supported}}
  %0 = tensor.argsort %x {dim = 0} : tensor<3xi1> -> tensor<3xi64>
  return
}

// -----

func.func @argsort_result(%x: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.argsort' op inferred type(s) 'tensor<3xi64>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  %0 = tensor.argsort %x {dim = 0} : tensor<3xf32>
  return
}

// -----

func.func @cumsum_int_result(%x: tensor<3xi32>) {
  // expected-error@+1 {{'tensor.cumsum' op inferred type(s) 'tensor<3xi64>' are incompatible with return type(s) of operation 'tensor<3xi32>'}}
  %0 = tensor.cumsum %x {dim = 0} : tensor<3xi32>
  return
}

// -----

func.func @softmax_missing_dim(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.softmax' op requires attribute 'dim'}}
  %0 = tensor.softmax %x : tensor<2x3xf32>
  return
}

// -----

func.func @softmax_int(%x: tensor<2x3xi32>) {
  // expected-error@+1 {{'tensor.log_softmax' op softmax requires a floating point element type, got i32}}
  %0 = tensor.log_softmax %x {dim = 0} : tensor<2x3xi32>
  return
}

// -----

func.func @layer_norm_ndim(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.layer_norm' op 'normalized_ndim' must be in [1, 2], got 3}}
  %0:3 = tensor.layer_norm %x {normalized_ndim = 3} : tensor<2x3xf32> -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @layer_norm_weight(%x: tensor<2x3xf32>, %w: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.layer_norm' op weight must be a f32 tensor of shape [3], got tensor<2xf32>}}
  %0:3 = tensor.layer_norm %x, %w, %w {normalized_ndim = 1} : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32> -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @layer_norm_two_operands(%x: tensor<2x3xf32>, %w: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.layer_norm' op takes 1 or 3 operands (x, weight, bias), got 2}}
  %0:3 = tensor.layer_norm %x, %w {normalized_ndim = 1} : tensor<2x3xf32>, tensor<3xf32> -> (tensor<2x3xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return
}

// -----

func.func @mm_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'tensor.mm' op expects 2-D operands, got tensor<2x3x4xf32> and tensor<4x5xf32>}}
  %0 = tensor.mm %a, %b : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @mm_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error@+1 {{'tensor.mm' op contraction dimensions differ: tensor<2x3xf32> and tensor<4x5xf32>}}
  %0 = tensor.mm %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @bmm_batch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // expected-error@+1 {{'tensor.bmm' op batch or contraction dimensions differ}}
  %0 = tensor.bmm %a, %b : tensor<2x3x4xf32>, tensor<3x4x5xf32> -> tensor<2x3x5xf32>
  return
}

// -----

func.func @matmul_scalar(%a: tensor<f32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.matmul' op operands must be at least 1-D}}
  %0 = tensor.matmul %a, %b : tensor<f32>, tensor<3xf32> -> tensor<f32>
  return
}

// -----

func.func @linear_shapes(%x: tensor<2x3xf32>, %w: tensor<4x5xf32>) {
  // expected-error@+1 {{'tensor.linear' op expects x [..., in] and w [out, in], got tensor<2x3xf32> and tensor<4x5xf32>}}
  %0 = tensor.linear %x, %w : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.linear' op bias must have shape [4], got tensor<3xf32>}}
  %0 = tensor.linear %x, %w, %b : tensor<2x3xf32>, tensor<4x3xf32>, tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @embedding_float_indices(%w: tensor<5x2xf32>, %i: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.embedding' op indices must be an integer tensor, got tensor<3xf32>}}
  %0 = tensor.embedding %w, %i : tensor<5x2xf32>, tensor<3xf32> -> tensor<3x2xf32>
  return
}

// -----

func.func @embedding_weight_rank(%w: tensor<5xf32>, %i: tensor<3xi64>) {
  // expected-error@+1 {{'tensor.embedding' op weight must be 2-D, got tensor<5xf32>}}
  %0 = tensor.embedding %w, %i : tensor<5xf32>, tensor<3xi64> -> tensor<3xf32>
  return
}

// -----

func.func @gather_rank(%x: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error@+1 {{'tensor.gather' op index must have the same rank as the input}}
  %0 = tensor.gather %x, %i {dim = 1} : tensor<3x4xf32>, tensor<3xi64> -> tensor<3xf32>
  return
}

// -----

func.func @gather_size(%x: tensor<3x4xf32>, %i: tensor<5x1xi64>) {
  // expected-error@+1 {{'tensor.gather' op index size 5 exceeds input size 3 in dimension 0}}
  %0 = tensor.gather %x, %i {dim = 1} : tensor<3x4xf32>, tensor<5x1xi64> -> tensor<5x1xf32>
  return
}

// -----

func.func @index_select_rank(%x: tensor<3x4xf32>, %i: tensor<2x2xi64>) {
  // expected-error@+1 {{'tensor.index_select' op index must be 1-D, got tensor<2x2xi64>}}
  %0 = tensor.index_select %x, %i {dim = 0} : tensor<3x4xf32>, tensor<2x2xi64> -> tensor<4x4xf32>
  return
}

// -----

func.func @scatter_add_src(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %s: tensor<3x2xf64>) {
  // expected-error@+1 {{'tensor.scatter_add' op src must have element type f32, got f64}}
  %0 = tensor.scatter_add %x, %i, %s {dim = 1} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf64> -> tensor<3x4xf32>
  return
}

// -----

func.func @cat_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error@+1 {{'tensor.cat' op operand #1 (tensor<2x4xf32>) does not match tensor<2x3xf32> outside dimension 0}}
  %0 = tensor.cat %a, %b {dim = 0} : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @cat_empty() {
  // expected-error@+1 {{'tensor.cat' op expected at least 1 operands, but found 0}}
  %0 = "tensor.cat"() {dim = 0} : () -> tensor<2xf32>
  return
}

// -----

func.func @full_bool() {
  // expected-error@+1 {{'tensor.full' op value 2 is not a boolean}}
  %0 = tensor.full {value = 2.0} : tensor<2xi1>
  return
}

// -----

func.func @fill_bool(%m: tensor<2xi1>) {
  // expected-error@+1 {{'tensor.fill' op value 2 is not a boolean}}
  %0 = tensor.fill %m {value = 2.0} : tensor<2xi1>
  return
}

// -----

func.func @fill_type(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.fill' op}}
  %0 = "tensor.fill"(%x) {value = 1.0} : (tensor<2xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @arange_rank() {
  // expected-error@+1 {{'tensor.arange' op result must be 1-D, got tensor<2x2xf32>}}
  %0 = tensor.arange : tensor<2x2xf32>
  return
}

// -----

func.func @arange_step() {
  // expected-error@+1 {{'tensor.arange' op step must be non-zero}}
  %0 = tensor.arange {step = 0.0} : tensor<4xf32>
  return
}

// -----

/// A symbolic length counts no more elements than a buffer may hold (the
/// allocation limit): positions over a product of two symbols are whole
/// numbers of i64, a step of 2^40 over as many is not.
func.func @arange_symbolic_length(%x: tensor<s0xs1xf32>) -> tensor<(s0*s1)xi64> {
  %0 = tensor.arange : tensor<(s0*s1)xi64>
  return %0 : tensor<(s0*s1)xi64>
}

// -----

func.func @arange_symbolic_step_too_large(%x: tensor<s0xs1xf32>) -> tensor<(s0*s1)xi64> {
  // expected-error@+1 {{'tensor.arange' op start 0.0 and step 1099511627776.0 do not give whole numbers within the range of i64}}
  %0 = tensor.arange {step = 1099511627776.0} : tensor<(s0*s1)xi64>
  return %0 : tensor<(s0*s1)xi64>
}

// -----

func.func @reduce_dims_kind(%x: tensor<2x3xf32>) {
  // expected-error@+1 {{'tensor.sum' op attribute 'dims' expects a list of integers}}
  %0 = tensor.sum %x {dims = ["a"]} : tensor<2x3xf32> -> tensor<f32>
  return
}

// -----

func.func @index_put_values(%x: tensor<3x4xf32>, %i: tensor<2xi64>, %v: tensor<3xf32>) {
  // expected-error@+1 {{'tensor.index_put' op values of shape [3] cannot be broadcast to the indexed shape [2, 4]}}
  %0 = tensor.index_put %x, %i, %v : tensor<3x4xf32>, tensor<2xi64>, tensor<3xf32> -> tensor<3x4xf32>
  return
}

// -----

// PyTorch's error for a maximum over an empty dimension, raised statically
// (a dead reduction too, which compiled code would otherwise drop).
func.func @amax_empty_dim(%x: tensor<0x3xf32>) {
  // expected-error@+1 {{'tensor.amax' op amax(): Expected reduction dim 0 to have non-zero size.}}
  %0 = tensor.amax %x {dims = [0]} : tensor<0x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @amin_empty_all(%x: tensor<0x3xf32>) {
  // expected-error@+1 {{'tensor.amin' op amin(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.}}
  %0 = tensor.amin %x : tensor<0x3xf32> -> tensor<f32>
  return
}

// -----

// Reducing the non-empty dimension of an empty tensor is fine: an empty result.
func.func @amax_nonempty_dim_of_empty(%x: tensor<0x3xf32>) -> tensor<0xf32> {
  %0 = tensor.amax %x {dims = [1]} : tensor<0x3xf32> -> tensor<0xf32>
  return %0 : tensor<0xf32>
}

// -----

func.func @floor_divide_float(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.floor_divide' op takes integer operands, got f32}}
  %0 = tensor.floor_divide %x, %x : tensor<2xf32>
  return
}

// -----

func.func @floor_divide_bool(%x: tensor<2xi1>) {
  // expected-error@+1 {{'tensor.floor_divide' op takes integer operands, got i1}}
  %0 = tensor.floor_divide %x, %x : tensor<2xi1>
  return
}

// -----

func.func @size_value_not_scalar() -> tensor<2xi64> {
  // expected-error@+1 {{'tensor.size_value' op the result must be a 0-d number, got tensor<2xi64>}}
  %0 = tensor.size_value {size = array<i64: 3>} : tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

func.func @size_value_two_sizes() -> tensor<i64> {
  // expected-error@+1 {{'tensor.size_value' op 'size' must hold exactly one size}}
  %0 = tensor.size_value {size = array<i64: 3, 4>} : tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @size_value_integer_ratio() -> tensor<i64> {
  // expected-error@+1 {{'tensor.size_value' op a ratio ('numerator') needs a float result}}
  %0 = tensor.size_value {size = array<i64: 3>, numerator = 1.0} : tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @pow_scalar_int(%x: tensor<2xi64>) {
  // expected-error@+1 {{'tensor.pow_scalar' op this op requires a floating point element type, got i64}}
  %0 = tensor.pow_scalar %x {exponent = 2.0} : tensor<2xi64>
  return
}

// -----

func.func @pow_scalar_no_exponent(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.pow_scalar' op requires attribute 'exponent'}}
  %0 = tensor.pow_scalar %x : tensor<2xf32>
  return
}

// -----

func.func @hardswish_int(%x: tensor<2xi32>) {
  // expected-error@+1 {{'tensor.hardswish' op this op requires a floating point element type, got i32}}
  %0 = tensor.hardswish %x : tensor<2xi32>
  return
}

// -----

func.func @clamp_tensor_bool(%x: tensor<2xi1>) {
  // expected-error@+1 {{'tensor.clamp_tensor' op does not support i1 operands}}
  %0 = tensor.clamp_tensor %x, %x, %x : tensor<2xi1>
  return
}

// -----

func.func @clamp_tensor_mixed(%x: tensor<2xf32>, %lo: tensor<2xf64>) {
  // expected-error@+1 {{'tensor.clamp_tensor' op requires the same element type for all operands, got f32 and f64}}
  %0 = tensor.clamp_tensor %x, %lo, %x : tensor<2xf32>, tensor<2xf64>, tensor<2xf32> -> tensor<2xf32>
  return
}

// -----

func.func @glu_int(%x: tensor<2xi32>) {
  // expected-error@+1 {{'tensor.glu' op this op requires a floating point element type, got i32}}
  %0 = tensor.glu %x, %x : tensor<2xi32>
  return
}

// -----

func.func @logit_int(%x: tensor<2xi64>) {
  // expected-error@+1 {{'tensor.logit' op this op requires a floating point element type, got i64}}
  %0 = tensor.logit %x : tensor<2xi64>
  return
}

// -----

func.func @lerp_two_weights(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.lerp' op takes its weight as a third operand or as the 'weight' attribute, exactly one}}
  %0 = tensor.lerp %x, %x, %x {weight = 0.5} : tensor<2xf32>
  return
}

// -----

func.func @lerp_no_weight(%x: tensor<2xf32>) {
  // expected-error@+1 {{'tensor.lerp' op takes its weight as a third operand or as the 'weight' attribute, exactly one}}
  %0 = tensor.lerp %x, %x : tensor<2xf32>
  return
}
