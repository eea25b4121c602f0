/// view.detach returned alone: requires_grad false, zero gradient.
func.func @main(%a: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = view.detach %a : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
