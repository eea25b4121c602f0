/// tensor.abs on f32 (no zeros: the gradient is sign(x)).
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.abs %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
