/// tensor.log on positive f64 values.
func.func @main(%a: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tensor.log %a : tensor<4xf64>
  return %0 : tensor<4xf64>
}
