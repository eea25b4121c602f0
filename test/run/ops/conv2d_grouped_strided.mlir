/// tensor.conv: two groups of two input channels, stride 2, uneven padding and dilation per dimension.
func.func @main(%x: tensor<1x4x7x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x2xf32> {
  %0 = tensor.conv %x, %w {stride = [2, 2], padding = [1, 0], dilation = [1, 2], groups = 2} : tensor<1x4x7x8xf32>, tensor<6x2x3x3xf32> -> tensor<1x6x4x2xf32>
  return %0 : tensor<1x6x4x2xf32>
}
