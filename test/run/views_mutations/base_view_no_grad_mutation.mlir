/// A view of a differentiable base mutated under no_grad; the other
/// view is returned: the mutation is invisible to autograd.
func.func @main(%a: tensor<2xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  mut.fill_ %a {value = 3.0, aot.no_grad} : tensor<2xf32>
  %0 = tensor.sin %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
