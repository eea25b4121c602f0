/// tensor.pow in f64, base 2x1 and exponent 3 broadcast to 2x3.
func.func @main(%a: tensor<2x1xf64>, %b: tensor<3xf64>) -> tensor<2x3xf64> {
  %0 = tensor.pow %a, %b : tensor<2x1xf64>, tensor<3xf64> -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
