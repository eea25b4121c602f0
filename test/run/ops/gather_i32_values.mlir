/// tensor.gather of i32 values along dim 0.
func.func @main(%a: tensor<2x3xi32>, %b: tensor<2x3xi64>) -> tensor<2x3xi32> {
  %0 = tensor.gather %a, %b {dim = 0} : tensor<2x3xi32>, tensor<2x3xi64> -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
