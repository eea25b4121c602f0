/// tensor.pow with a 0-d exponent broadcast over the base.
func.func @main(%a: tensor<4xf32>, %b: tensor<f32>) -> tensor<4xf32> {
  %0 = tensor.pow %a, %b : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
