/// tensor.amin over all dims in f64.
func.func @main(%a: tensor<2x2xf64>) -> tensor<f64> {
  %0 = tensor.amin %a {dims = []} : tensor<2x2xf64> -> tensor<f64>
  return %0 : tensor<f64>
}
