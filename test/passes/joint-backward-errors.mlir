// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(functionalize))' | FileCheck %s --check-prefix=FUNC
// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(functionalize,collect-metadata,joint))'
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(aot-inference)' | FileCheck %s --check-prefix=INFER

// The errors PyTorch's backward raises: functionalize finds them in the
// autograd graph it mirrors and records them (aot.backward_error); joint
// raises them at the op's location. Inference never runs a backward, so it
// compiles such programs.

/// sin saves its operand, which add_ changes afterwards.
// FUNC-LABEL: func.func @saved_operand
// FUNC-SAME:  aot.backward_error = #aot.backward_error<message = "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]] is at version 1; expected version 0 instead"
// INFER-LABEL: func.func @saved_operand
// INFER:      tensor.sin
func.func @saved_operand(%a: tensor<3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %x = tensor.mul %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  // expected-error@+1 {{one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]] is at version 1; expected version 0 instead}}
  %y = tensor.sin %x : tensor<3xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  mut.add_ %x, %one : tensor<3xf32>, tensor<f32>
  return %y : tensor<3xf32>
}

// -----

/// The changed operand is saved, but sin's result is not in the objective:
/// its backward never runs.
// FUNC-LABEL: func.func @not_run
// FUNC-NOT:   aot.backward_error
func.func @not_run(%a: tensor<3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %x = tensor.mul %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %y = tensor.sin %x : tensor<3xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  mut.add_ %x, %one : tensor<3xf32>, tensor<f32>
  return %x : tensor<3xf32>
}

// -----

/// exp saves its result; a write to the result after it is read back.
// FUNC-LABEL: func.func @saved_result
// FUNC-SAME:  aot.backward_error
func.func @saved_result(%a: tensor<3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  // expected-error@+1 {{one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]] is at version 1; expected version 0 instead}}
  %y = tensor.exp %a : tensor<3xf32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %y, %two : tensor<3xf32>, tensor<f32>
  return %y : tensor<3xf32>
}

// -----

/// squeeze_ under no_grad: the gradient no longer fits the recorded shape.
// FUNC-LABEL: func.func @squeezed
// FUNC-SAME:  aot.backward_error = #aot.backward_error<message = "Function MulBackward0 returned an invalid gradient at index 0 - got [3] but expected shape compatible with [1, 3]"
func.func @squeezed(%a: tensor<1x3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %x = tensor.mul %a, %a : tensor<1x3xf32>, tensor<1x3xf32> -> tensor<1x3xf32>
  %s = mut.squeeze_ %x {aot.no_grad, dim = 0} : tensor<1x3xf32> -> tensor<3xf32>
  // expected-error@+1 {{Function MulBackward0 returned an invalid gradient at index 0 - got [3] but expected shape compatible with [1, 3]}}
  return %s : tensor<3xf32>
}

// -----

/// set_ that autograd records has no derivative.
// FUNC-LABEL: func.func @set_recorded
// FUNC-SAME:  aot.backward_error = #aot.backward_error<message = "derivative for set_ is not implemented"
func.func @set_recorded(%a: tensor<3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %x = tensor.full {value = 1.0} : tensor<3xf32>
  %y = tensor.mul %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  // expected-error@+1 {{derivative for set_ is not implemented}}
  %s = mut.set_ %x, %y : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

/// as_strided in grad mode reaching storage elements outside its input:
/// PyTorch's gradient drops those elements; refused for training.
// FUNC-LABEL: func.func @as_strided_beyond
// FUNC-SAME:  aot.backward_error
func.func @as_strided_beyond(%a: tensor<3x1xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %m = tensor.mul %a, %a : tensor<3x1xf32>, tensor<3x1xf32> -> tensor<3x1xf32>
  %e = view.as_strided %m {offset = 0, size = [], stride = []} : tensor<3x1xf32> -> tensor<f32>
  // expected-error@+1 {{unsupported operation: as_strided in grad mode reaches storage element 1, outside its input, whose gradient autograd drops}}
  %r = mut.as_strided_ %e {offset = 1, size = [3], stride = [0]} : tensor<f32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// -----

/// set_ under no_grad keeps a leaf's autograd identity with data of another
/// shape: its gradient would be of other elements; refused for training.
// FUNC-LABEL: func.func @set_nograd_new_shape
// FUNC-SAME:  aot.backward_error
func.func @set_nograd_new_shape(%a: tensor<4xf32> {aot.requires_grad}, %b: tensor<4xf32>) -> tensor<8xf32> {
  %c = tensor.cat %b, %b {dim = 0} : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
  // expected-error@+1 {{unsupported operation: set_ under no_grad gives a tensor that requires grad other data of another shape, so its gradient would not be one of its own elements}}
  %s = mut.set_ %a, %c {aot.no_grad} : tensor<4xf32>, tensor<8xf32> -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

/// The same on a tensor with a history: the gradient reaches that history
/// in the new shape, which is PyTorch's own error.
// FUNC-LABEL: func.func @set_nograd_history
// FUNC-SAME:  aot.backward_error
func.func @set_nograd_history(%a: tensor<4xf32> {aot.requires_grad}) -> tensor<8xf32> {
  %x = tensor.mul %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %c = tensor.cat %x, %x {dim = 0} : tensor<4xf32>, tensor<4xf32> -> tensor<8xf32>
  %s = mut.set_ %x, %c {aot.no_grad} : tensor<4xf32>, tensor<8xf32> -> tensor<8xf32>
  // expected-error@+1 {{Function MulBackward0 returned an invalid gradient at index 0 - got [8] but expected shape compatible with [4]}}
  return %s : tensor<8xf32>
}
