/// tensor.clamp with only an upper bound, in f64.
func.func @main(%a: tensor<5xf64>) -> tensor<5xf64> {
  %0 = tensor.clamp %a {max = 1.0} : tensor<5xf64>
  return %0 : tensor<5xf64>
}
