/// tensor.conv_weight_grad: the weight gradient of a two-group convolution with stride, padding and dilation; differentiable in both operands.
func.func @main(%g: tensor<2x2x4x1xf32>, %x: tensor<2x4x6x5xf32>) -> tensor<2x2x2x3xf32> {
  %0 = tensor.conv_weight_grad %g, %x {stride = [2, 1], padding = [1, 0], dilation = [1, 2], groups = 2, kernel_size = [2, 3]} : tensor<2x2x4x1xf32>, tensor<2x4x6x5xf32> -> tensor<2x2x2x3xf32>
  return %0 : tensor<2x2x2x3xf32>
}
