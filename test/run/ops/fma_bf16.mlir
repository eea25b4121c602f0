/// tensor.fma in bf16: fused in f32, rounded to bf16 once.
func.func @main(%a: tensor<8xbf16>, %b: tensor<bf16>, %c: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = tensor.fma %a, %b, %c : tensor<8xbf16>, tensor<bf16>, tensor<8xbf16> -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}
