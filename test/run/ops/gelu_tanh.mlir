/// tensor.gelu with approximate = "tanh".
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.gelu %a {approximate = "tanh"} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
