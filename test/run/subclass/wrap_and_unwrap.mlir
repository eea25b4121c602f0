// Building a TwoTensor from dense tensors and opening one: both are
// differentiable.
aot.subclass @TwoTensor {inner = ["a", "b"]}
func.func @main(%p: tensor<2x2xf32>, %q: tensor<2x2xf32>, %x: !aot.subclass<@TwoTensor, tensor<2x2xf32>>) -> (!aot.subclass<@TwoTensor, tensor<2x2xf32>>, tensor<2x2xf32>) {
  %w = aot.subclass_wrap %p, %q : tensor<2x2xf32> -> !aot.subclass<@TwoTensor, tensor<2x2xf32>>
  %s = tensor.mul %w, %x : !aot.subclass<@TwoTensor, tensor<2x2xf32>>
  %a, %b = aot.subclass_unwrap %x : !aot.subclass<@TwoTensor, tensor<2x2xf32>> -> (tensor<2x2xf32>, tensor<2x2xf32>)
  %d = tensor.sub %a, %b : tensor<2x2xf32>
  %e = tensor.mul %d, %p : tensor<2x2xf32>
  return %s, %e : !aot.subclass<@TwoTensor, tensor<2x2xf32>>, tensor<2x2xf32>
}
