/// tensor.log on positive f32 values.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.log %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
