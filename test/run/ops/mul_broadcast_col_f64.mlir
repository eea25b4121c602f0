/// tensor.mul of a 2x3 f64 matrix by a 2x1 column.
func.func @main(%a: tensor<2x3xf64>, %b: tensor<2x1xf64>) -> tensor<2x3xf64> {
  %0 = tensor.mul %a, %b : tensor<2x3xf64>, tensor<2x1xf64> -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
