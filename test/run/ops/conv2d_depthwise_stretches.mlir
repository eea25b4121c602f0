/// tensor.conv, depthwise 3x3 with padding, on rows of 16 outputs (computed as four stretches of four side by side) and of 8 (two stretches), with a bias; with gradients (the input gradient is the same kind of kernel).
func.func @main(%x: tensor<2x3x5x16xf32>, %w: tensor<3x1x3x3xf32>, %b: tensor<3xf32>, %y: tensor<1x2x4x8xf32>, %v: tensor<2x1x3x3xf32>) -> (tensor<2x3x5x16xf32>, tensor<1x2x4x8xf32>) {
  %0 = tensor.conv %x, %w, %b {padding = [1, 1], groups = 3} : tensor<2x3x5x16xf32>, tensor<3x1x3x3xf32>, tensor<3xf32> -> tensor<2x3x5x16xf32>
  %1 = tensor.conv %y, %v {padding = [1, 1], groups = 2} : tensor<1x2x4x8xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x4x8xf32>
  return %0, %1 : tensor<2x3x5x16xf32>, tensor<1x2x4x8xf32>
}
