/// tensor.matmul of a vector and a matrix.
func.func @main(%a: tensor<3xf32>, %b: tensor<3x2xf32>) -> tensor<2xf32> {
  %0 = tensor.matmul %a, %b : tensor<3xf32>, tensor<3x2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
