// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(flatten-subclasses))'

/// A dense argument that requires grad and is read by the components of a
/// dispatched op gets a subclass gradient in PyTorch. When it is also
/// written (so a per-component replica would miss the write), that cannot
/// be represented: refused.
aot.subclass @TwoTensor {inner = ["a", "b"]}
// expected-error@+1 {{argument 1 is a dense tensor that requires grad and is shared by the components of a subclass op}}
func.func @shared_grad(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>, %w: tensor<3xf32> {aot.requires_grad, aot.non_leaf}) -> !aot.subclass<@TwoTensor, tensor<3xf32>> {
  %c = tensor.constant dense<1.0> : tensor<3xf32>
  mut.add_ %w, %c : tensor<3xf32>
  %0 = tensor.mul %x, %w : !aot.subclass<@TwoTensor, tensor<3xf32>>, tensor<3xf32> -> !aot.subclass<@TwoTensor, tensor<3xf32>>
  return %0 : !aot.subclass<@TwoTensor, tensor<3xf32>>
}

// -----

aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func private @callee(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>) -> !aot.subclass<@TwoTensor, tensor<3xf32>> {
  return %x : !aot.subclass<@TwoTensor, tensor<3xf32>>
}
func.func @calls(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>) -> !aot.subclass<@TwoTensor, tensor<3xf32>> {
  // expected-error@+1 {{calls with subclass operands or results are not flattened: inline the callee first}}
  %0 = func.call @callee(%x) : (!aot.subclass<@TwoTensor, tensor<3xf32>>) -> !aot.subclass<@TwoTensor, tensor<3xf32>>
  return %0 : !aot.subclass<@TwoTensor, tensor<3xf32>>
}

// -----

aot.subclass @TwoTensor {inner = ["a", "b"]}
// expected-error@+1 {{argument 1 (a @TwoTensor value) has 'aot.same_as': give calling-convention attributes to the inner tensors after flattening}}
func.func @convention_attr(%x: !aot.subclass<@TwoTensor, tensor<3xf32>>, %y: !aot.subclass<@TwoTensor, tensor<3xf32>> {aot.same_as = 0}) {
  return
}

// -----

// expected-error@+1 {{argument 0 is a @Missing value, which this module does not declare}}
func.func @undeclared(%x: !aot.subclass<@Missing, tensor<3xf32>>) {
  return
}
