/// tensor.linear of a 3-D input (2x2x3) with bias, in f64.
func.func @main(%a: tensor<2x2x3xf64>, %b: tensor<5x3xf64>, %c: tensor<5xf64>) -> tensor<2x2x5xf64> {
  %0 = tensor.linear %a, %b, %c : tensor<2x2x3xf64>, tensor<5x3xf64>, tensor<5xf64> -> tensor<2x2x5xf64>
  return %0 : tensor<2x2x5xf64>
}
