/// view.select_scatter along dim -1 with index -1, on i64.
func.func @main(%a: tensor<2x3xi64>, %b: tensor<2xi64>) -> tensor<2x3xi64> {
  %0 = view.select_scatter %a, %b {dim = -1, index = -1} : tensor<2x3xi64>, tensor<2xi64> -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}
