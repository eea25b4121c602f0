/// tensor.amax over dim 1 (distinct values: the gradient goes to the max).
func.func @main(%a: tensor<3x4xf32>) -> tensor<3xf32> {
  %0 = tensor.amax %a {dims = [1]} : tensor<3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
