/// tensor.gt on f64, 2x3 vs 2x1.
func.func @main(%a: tensor<2x3xf64>, %b: tensor<2x1xf64>) -> tensor<2x3xi1> {
  %0 = tensor.gt %a, %b : tensor<2x3xf64>, tensor<2x1xf64> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}
