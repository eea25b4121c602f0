/// tensor.bmm in f64 with batch 3.
func.func @main(%a: tensor<3x2x2xf64>, %b: tensor<3x2x1xf64>) -> tensor<3x2x1xf64> {
  %0 = tensor.bmm %a, %b : tensor<3x2x2xf64>, tensor<3x2x1xf64> -> tensor<3x2x1xf64>
  return %0 : tensor<3x2x1xf64>
}
