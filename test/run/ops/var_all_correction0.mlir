/// tensor.var over all dims with correction = 0 (population variance).
func.func @main(%a: tensor<2x3xf32>) -> tensor<f32> {
  %0 = tensor.var %a {dims = [], correction = 0} : tensor<2x3xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
