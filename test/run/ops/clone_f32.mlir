/// tensor.clone makes a fresh tensor (alias_of_arg null) that keeps requires_grad.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.clone %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
