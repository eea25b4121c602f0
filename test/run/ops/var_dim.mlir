/// tensor.var over dim 1 with the default correction (1).
func.func @main(%a: tensor<3x4xf32>) -> tensor<3xf32> {
  %0 = tensor.var %a {dims = [1]} : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
