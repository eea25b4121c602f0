/// tensor.cast f32 -> f64; the gradient flows back as f32.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf64> {
  %0 = tensor.cast %a : tensor<2x3xf32> -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
