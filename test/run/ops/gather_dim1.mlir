/// tensor.gather along dim 1 with repeated indices.
func.func @main(%a: tensor<3x4xf32>, %b: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = tensor.gather %a, %b {dim = 1} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
