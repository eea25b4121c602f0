/// tensor.silu on bf16: x / (1 + exp(-x)); its gradient is PyTorch's own
/// formula, finite at -95 where exp(95) overflows f32.
func.func @main(%a: tensor<8xbf16>) -> tensor<8xbf16> {
  %0 = tensor.silu %a : tensor<8xbf16>
  return %0 : tensor<8xbf16>
}
