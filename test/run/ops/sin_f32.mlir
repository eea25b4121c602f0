/// tensor.sin on f32.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.sin %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
