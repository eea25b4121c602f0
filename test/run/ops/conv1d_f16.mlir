/// tensor.conv: a dense f16 convolution (sums over channels in f32).
func.func @main(%x: tensor<1x3x9xf16>, %w: tensor<2x3x3xf16>) -> tensor<1x2x9xf16> {
  %0 = tensor.conv %x, %w {padding = [1]} : tensor<1x3x9xf16>, tensor<2x3x3xf16> -> tensor<1x2x9xf16>
  return %0 : tensor<1x2x9xf16>
}
