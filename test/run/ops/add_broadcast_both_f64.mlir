/// tensor.add where both operands broadcast (3x1 + 1x4 -> 3x4), in f64.
func.func @main(%a: tensor<3x1xf64>, %b: tensor<1x4xf64>) -> tensor<3x4xf64> {
  %0 = tensor.add %a, %b : tensor<3x1xf64>, tensor<1x4xf64> -> tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}
