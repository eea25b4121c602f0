/// tensor.index_select of i64 values along dim 1 of a 3-D tensor.
func.func @main(%a: tensor<2x3x2xi64>, %b: tensor<2xi64>) -> tensor<2x2x2xi64> {
  %0 = tensor.index_select %a, %b {dim = 1} : tensor<2x3x2xi64>, tensor<2xi64> -> tensor<2x2x2xi64>
  return %0 : tensor<2x2x2xi64>
}
