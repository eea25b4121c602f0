/// tensor.embedding with 1-D i32 indices.
func.func @main(%a: tensor<4x2xf32>, %b: tensor<3xi32>) -> tensor<3x2xf32> {
  %0 = tensor.embedding %a, %b : tensor<4x2xf32>, tensor<3xi32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
