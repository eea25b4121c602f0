/// tensor.conv: ConvNeXt's depthwise 7x7 (padding 3, one channel per group) with a bias.
func.func @main(%x: tensor<2x3x8x9xf32>, %w: tensor<3x1x7x7xf32>, %b: tensor<3xf32>) -> tensor<2x3x8x9xf32> {
  %0 = tensor.conv %x, %w, %b {padding = [3, 3], groups = 3} : tensor<2x3x8x9xf32>, tensor<3x1x7x7xf32>, tensor<3xf32> -> tensor<2x3x8x9xf32>
  return %0 : tensor<2x3x8x9xf32>
}
