/// tensor.rsqrt on positive f64 values.
func.func @main(%a: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %0 = tensor.rsqrt %a : tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
