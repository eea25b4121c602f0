/// tensor.expm1 in f64 (tiny and large magnitudes) and in bf16.
func.func @main(%a: tensor<5xf64>, %b: tensor<3xbf16>) -> (tensor<5xf64>, tensor<3xbf16>) {
  %0 = tensor.expm1 %a : tensor<5xf64>
  %1 = tensor.expm1 %b : tensor<3xbf16>
  return %0, %1 : tensor<5xf64>, tensor<3xbf16>
}
