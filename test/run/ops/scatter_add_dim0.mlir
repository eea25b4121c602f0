/// tensor.scatter_add along dim 0 with colliding indices; gradients for x and src.
func.func @main(%a: tensor<3x3xf32>, %b: tensor<2x3xi64>, %c: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %0 = tensor.scatter_add %a, %b, %c {dim = 0} : tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
