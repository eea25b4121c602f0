/// view.unbind with the default dim (0) on i64.
func.func @main(%x: tensor<2x3xi64>) -> (tensor<3xi64>, tensor<3xi64>) {
  %r:2 = view.unbind %x : tensor<2x3xi64> -> (tensor<3xi64>, tensor<3xi64>)
  return %r#1, %r#0 : tensor<3xi64>, tensor<3xi64>
}
