/// tensor.silu on f32: x / (1 + exp(-x)); its gradient is PyTorch's own
/// formula, finite at -95 where exp(95) overflows f32.
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = tensor.silu %a : tensor<8xf32>
  return %0 : tensor<8xf32>
}
