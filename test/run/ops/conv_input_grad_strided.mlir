/// tensor.conv_input_grad: a depthwise convolution's input gradient with stride 2 and padding 3 (more than the kernel reaches) in one dimension; differentiable in both operands.
func.func @main(%g: tensor<1x2x5x6xf32>, %w: tensor<2x1x3x3xf32>) -> tensor<1x2x5x6xf32> {
  %0 = tensor.conv_input_grad %g, %w {stride = [2, 1], padding = [3, 1], groups = 2, input_shape = [1, 2, 5, 6]} : tensor<1x2x5x6xf32>, tensor<2x1x3x3xf32> -> tensor<1x2x5x6xf32>
  return %0 : tensor<1x2x5x6xf32>
}
