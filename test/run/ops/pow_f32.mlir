/// tensor.pow with positive bases; gradients w.r.t. base and exponent.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.pow %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
