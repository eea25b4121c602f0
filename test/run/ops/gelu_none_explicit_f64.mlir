/// tensor.gelu with approximate = "none" written out, in f64.
func.func @main(%a: tensor<4xf64>) -> tensor<4xf64> {
  %0 = tensor.gelu %a {approximate = "none"} : tensor<4xf64>
  return %0 : tensor<4xf64>
}
