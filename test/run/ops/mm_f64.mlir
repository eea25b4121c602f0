/// tensor.mm in f64, (4x2)@(2x3).
func.func @main(%a: tensor<4x2xf64>, %b: tensor<2x3xf64>) -> tensor<4x3xf64> {
  %0 = tensor.mm %a, %b : tensor<4x2xf64>, tensor<2x3xf64> -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}
