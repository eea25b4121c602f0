/// Two args viewing one storage, arg 1 a requires-grad leaf (detached
/// view), arg 0 a plain 2x2 view mutated; the leaf sees the new values.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  mut.neg_ %a : tensor<2x2xf32>
  %0 = tensor.mul %b, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}
