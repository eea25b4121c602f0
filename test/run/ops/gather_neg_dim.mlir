/// tensor.gather along dim -2 with an index smaller than the input.
func.func @main(%a: tensor<3x3xf32>, %b: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %0 = tensor.gather %a, %b {dim = -2} : tensor<3x3xf32>, tensor<2x3xi64> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
