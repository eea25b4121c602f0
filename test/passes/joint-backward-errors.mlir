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

// -----

/// An as_strided view of a detached tensor that copy_ made require grad is
/// read from the storage, not from the history copy_ gave the family:
/// refused for training (inference compiles it).
// FUNC-LABEL: func.func @as_strided_of_anchored
// FUNC-SAME:  aot.backward_error
// INFER-LABEL: func.func @as_strided_of_anchored
func.func @as_strided_of_anchored(%a: tensor<4xf32>, %b: tensor<4xf32> {aot.requires_grad}) -> tensor<f32> {
  %d = view.detach %a : tensor<4xf32>
  mut.copy_ %d, %b : tensor<4xf32>, tensor<4xf32>
  // expected-error@+1 {{unsupported operation: as_strided of a detached tensor that an in-place op made require grad, whose gradient is not modelled}}
  %e = view.as_strided %d {offset = 3, size = [], stride = []} : tensor<4xf32> -> tensor<f32>
  return %e : tensor<f32>
}

// -----

/// A view moved under no_grad onto elements its root does not hold: PyTorch
/// regenerates its history as an as_strided of the root and drops their
/// gradient; refused for training.
// FUNC-LABEL: func.func @view_moved_outside_root
// FUNC-SAME:  aot.backward_error
func.func @view_moved_outside_root(%a: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 0, strides = [1]>},
                                   %b: tensor<4xf32> {aot.layout = #aot.layout<storage = 0, offset = 4, strides = [1]>, aot.requires_grad}) -> tensor<3xf32> {
  %s = view.select %b {dim = 0, index = 1} : tensor<4xf32> -> tensor<f32>
  // expected-error@+1 {{unsupported operation: 'mut.as_strided_' under no_grad moves a view onto storage element 0, outside the tensor whose history it takes, whose gradient autograd drops}}
  %m = mut.as_strided_ %s {aot.no_grad, offset = 0, size = [3], stride = [2]} : tensor<f32> -> tensor<3xf32>
  %c = tensor.clone %m : tensor<3xf32>
  return %c : tensor<3xf32>
}

// -----

/// A write through a view taken before its base moved to a later offset:
/// CopySlices' backward places the view relative to the base's new offset.
// FUNC-LABEL: func.func @copy_slices_offset
// FUNC-SAME:  aot.backward_error = #aot.backward_error<message = "Tensor: invalid storage offset -1"
func.func @copy_slices_offset(%a: tensor<6xf32> {aot.requires_grad}) -> tensor<2xf32> {
  %x = tensor.mul %a, %a : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
  %v = view.slice %x {dim = 0, start = 2, end = 5, step = 1} : tensor<6xf32> -> tensor<3xf32>
  %m = mut.as_strided_ %x {offset = 3, size = [2], stride = [1]} : tensor<6xf32> -> tensor<2xf32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  // expected-error@+1 {{Tensor: invalid storage offset -1}}
  mut.mul_ %v, %two : tensor<3xf32>, tensor<f32>
  return %m : tensor<2xf32>
}

// -----

/// The same view reaching past the base's new extent.
// FUNC-LABEL: func.func @copy_slices_extent
// FUNC-SAME:  aot.backward_error = #aot.backward_error<message = "setStorage: sizes [4], strides [1], storage offset 1, and itemsize 4 requiring a storage size of 20 are out of bounds for storage of size 8"
func.func @copy_slices_extent(%a: tensor<6xf32> {aot.requires_grad}) -> tensor<2xf32> {
  %x = tensor.mul %a, %a : tensor<6xf32>, tensor<6xf32> -> tensor<6xf32>
  %v = view.slice %x {dim = 0, start = 2, end = 6, step = 1} : tensor<6xf32> -> tensor<4xf32>
  %m = mut.as_strided_ %x {offset = 1, size = [2], stride = [1]} : tensor<6xf32> -> tensor<2xf32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  // expected-error@+1 {{setStorage: sizes [4], strides [1], storage offset 1, and itemsize 4 requiring a storage size of 20 are out of bounds for storage of size 8}}
  mut.mul_ %v, %two : tensor<4xf32>, tensor<f32>
  return %m : tensor<2xf32>
}

// -----

/// set_ under no_grad gives a leaf a new gradient accumulator: a use before
/// it sends its gradient to the old one, which autograd.grad does not
/// report. Refused when the backward reaches such a use.
// FUNC-LABEL: func.func @set_leaf_after_use
// FUNC-SAME:  aot.backward_error
func.func @set_leaf_after_use(%a: tensor<f32> {aot.requires_grad}, %b: tensor<f32>) -> tensor<f32> {
  %y = tensor.add %a, %b : tensor<f32>, tensor<f32> -> tensor<f32>
  // expected-error@+1 {{unsupported operation: set_ under no_grad of a leaf that requires grad, after an op autograd recorded used it: that use's gradient goes to a gradient accumulator the leaf no longer has}}
  %s = mut.set_ %a, %b {aot.no_grad} : tensor<f32>, tensor<f32> -> tensor<f32>
  return %y : tensor<f32>
}

// -----

/// The same set_ with only uses after it: the new accumulator is the one
/// the objective reaches, nothing is refused.
// FUNC-LABEL: func.func @set_leaf_before_use
// FUNC-NOT:   aot.backward_error
func.func @set_leaf_before_use(%a: tensor<f32> {aot.requires_grad}, %b: tensor<f32>) -> tensor<f32> {
  %s = mut.set_ %a, %b {aot.no_grad} : tensor<f32>, tensor<f32> -> tensor<f32>
  %y = tensor.add %s, %b : tensor<f32>, tensor<f32> -> tensor<f32>
  return %y : tensor<f32>
}

// -----

/// mul_ saves the scalar c; a no_grad write through t, which set_ moved onto
/// c's storage, changes c without moving c's version counter: PyTorch's
/// backward would read the new value unchecked. Refused.
// FUNC-LABEL: func.func @saved_changed_through_set
// FUNC-SAME:  aot.backward_error
func.func @saved_changed_through_set(%a: tensor<2xf32> {aot.requires_grad, aot.non_leaf}) -> tensor<2xf32> {
  %c = tensor.full {value = -1.69} : tensor<f32>
  // expected-error@+1 {{unsupported operation: a value saved for the backward was changed in place through a tensor set_ onto its storage, which PyTorch's version check does not see: its gradient would use the changed value}}
  mut.mul_ %a, %c : tensor<2xf32>, tensor<f32>
  %t = tensor.full {value = 0.37} : tensor<2xf32>
  %s = mut.set_ %t, %c : tensor<2xf32>, tensor<f32> -> tensor<f32>
  %k = tensor.full {value = -0.35} : tensor<f32>
  mut.div_ %s, %k {aot.no_grad} : tensor<f32>, tensor<f32>
  return %a : tensor<2xf32>
}

// -----

/// as_strided_ in grad mode moves x onto one element; a view taken before
/// holds others: PyTorch regenerates its history from x's new one and drops
/// their gradient. Refused.
// FUNC-LABEL: func.func @view_after_base_relaid
// FUNC-SAME:  aot.backward_error
func.func @view_after_base_relaid(%a: tensor<3xf32> {aot.requires_grad}) -> tensor<1xf32> {
  %x = tensor.mul %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %v = view.permute %x {dims = [0]} : tensor<3xf32> -> tensor<3xf32>
  %m = mut.as_strided_ %x {offset = 2, size = [1, 1], stride = [1, 2]} : tensor<3xf32> -> tensor<1x1xf32>
  // expected-error@+1 {{unsupported operation: a view used after its base moved (a metadata op in grad mode) holds storage element 0, outside the base's new layout, whose gradient autograd drops}}
  %s = tensor.sum %v {dims = [0], keepdim} : tensor<3xf32> -> tensor<1xf32>
  return %s : tensor<1xf32>
}

// -----

/// A view taken of x before set_ moved x to another storage: PyTorch
/// regenerates the view's history from x's, at the view's geometry in x's
/// new storage. Refused.
// FUNC-LABEL: func.func @view_after_base_set
// FUNC-SAME:  aot.backward_error
func.func @view_after_base_set(%a: tensor<4xf32> {aot.requires_grad}, %b: tensor<4xf32>) -> tensor<2xf32> {
  %x = tensor.mul %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %v = view.slice %x {dim = 0, start = 1, end = 3, step = 1} : tensor<4xf32> -> tensor<2xf32>
  %s = mut.set_ %x, %b {aot.no_grad} : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  // expected-error@+1 {{unsupported operation: a view used after set_ moved its base to another storage (its history is regenerated there)}}
  %r = tensor.neg %v : tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

/// A view set_ under no_grad into another storage, then written in grad
/// mode with a value that requires grad: PyTorch records the write as one
/// into the view's old base, which gets a history for elements the write
/// never reached. Refused for training; inference answers.
// FUNC-LABEL: func.func @write_through_view_moved_by_set
// FUNC-SAME:  aot.backward_error
// INFER-LABEL: func.func @write_through_view_moved_by_set
func.func @write_through_view_moved_by_set(%a: tensor<2xf32> {aot.requires_grad}, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %v = view.view %b {shape = [6]} : tensor<2x3xf32> -> tensor<6xf32>
  %e = view.select %a {dim = 0, index = 1} : tensor<2xf32> -> tensor<f32>
  %s = mut.set_ %v, %e {aot.no_grad} : tensor<6xf32>, tensor<f32> -> tensor<f32>
  %w = view.select %a {dim = 0, index = 0} : tensor<2xf32> -> tensor<f32>
  // expected-error@+1 {{unsupported operation: 'mut.copy_' in grad mode through a view that set_ moved under no_grad into another storage: PyTorch records it as a write into the view's old base}}
  mut.copy_ %s, %w : tensor<f32>, tensor<f32>
  %r = tensor.neg %b : tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

/// set_ under no_grad moves x onto a detached alias of its own storage:
/// a view of x taken before reads the storage, but PyTorch regenerates
/// its history from x's. Refused for training.
// FUNC-LABEL: func.func @view_after_base_set_onto_own_alias
// FUNC-SAME:  aot.backward_error
func.func @view_after_base_set_onto_own_alias(%a: tensor<3xf32> {aot.requires_grad}) -> tensor<3xf32> {
  %x = tensor.mul %a, %a : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %v = view.view %x {shape = [3]} : tensor<3xf32> -> tensor<3xf32>
  %d = view.detach %x : tensor<3xf32>
  %s = mut.set_ %x, %d {aot.no_grad} : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  // expected-error@+1 {{unsupported operation: a view used after set_ moved its base onto another tensor of its storage (its history is regenerated from the base's)}}
  mut.add_ %s, %v : tensor<3xf32>, tensor<3xf32>
  return %s : tensor<3xf32>
}

// -----

/// A detached alias made to require grad by add_, a view of it, then t_ of
/// the alias in grad mode: PyTorch regenerates the view's history from the
/// alias's new one, which the view's value no longer follows. Refused.
// FUNC-LABEL: func.func @view_of_anchored_alias_after_metadata_op
// FUNC-SAME:  aot.backward_error
func.func @view_of_anchored_alias_after_metadata_op(%a: tensor<2x2xf32> {aot.requires_grad}) -> tensor<2x2xf32> {
  %x = tensor.mul %a, %a : tensor<2x2xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %d = view.detach %x : tensor<2x2xf32>
  mut.add_ %d, %x : tensor<2x2xf32>, tensor<2x2xf32>
  %v = view.reshape %d {shape = array<i64: 2, 2>} : tensor<2x2xf32> -> tensor<2x2xf32>
  %t = mut.t_ %d : tensor<2x2xf32> -> tensor<2x2xf32>
  // expected-error@+1 {{unsupported operation: a view of a detached tensor that an in-place op made require grad, used after a metadata op changed that tensor (its history is regenerated from the tensor's)}}
  %r = tensor.neg %v : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// -----

/// A view of a leaf that holds one element at three positions (stride 0),
/// relaid out by unsqueeze_ under no_grad: PyTorch regenerates its history
/// as an as_strided of the leaf and shares the gradient among the three
/// positions. Refused for training.
// FUNC-LABEL: func.func @no_grad_relayout_of_view_of_self_overlapping_leaf
// FUNC-SAME:  aot.backward_error
func.func @no_grad_relayout_of_view_of_self_overlapping_leaf(%a: tensor<3xf32> {aot.layout = #aot.layout<storage = 0, offset = 2, strides = [0]>, aot.requires_grad}) -> tensor<3x1xf32> attributes {aot.storages = [#aot.storage<id = 0, numel = 6, requires_grad = false>]} {
  %v = view.reshape %a {shape = array<i64: 3>} : tensor<3xf32> -> tensor<3xf32>
  // expected-error@+1 {{unsupported operation: 'mut.unsqueeze_' under no_grad of a view of a tensor that holds an element at several positions (PyTorch regenerates the view's history as an as_strided of it, which shares the gradient among those positions)}}
  %u = mut.unsqueeze_ %v {dim = 0, aot.no_grad} : tensor<3xf32> -> tensor<1x3xf32>
  %t = view.t %u : tensor<1x3xf32> -> tensor<3x1xf32>
  return %t : tensor<3x1xf32>
}
