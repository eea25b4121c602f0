/// tensor.conv: a 3-d depthwise convolution with two outputs per channel and a 3x5x5 window (more taps than one loop body unrolls).
func.func @main(%x: tensor<1x2x4x6x6xf32>, %w: tensor<4x1x3x5x5xf32>) -> tensor<1x4x4x6x6xf32> {
  %0 = tensor.conv %x, %w {padding = [1, 2, 2], groups = 2} : tensor<1x2x4x6x6xf32>, tensor<4x1x3x5x5xf32> -> tensor<1x4x4x6x6xf32>
  return %0 : tensor<1x4x4x6x6xf32>
}
