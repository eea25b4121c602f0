/// tensor.conv, pointwise, on a channels-last input (ConvNeXt's MLP as 1x1 convolutions): the batch and positions are the rows of one GEMM into a channels-last result, GELU keeps that layout, and a grouped second convolution reads it in place; with gradients.
func.func @main(%xl: tensor<2x3x5x4xf32>, %w: tensor<6x4x1x1xf32>, %b: tensor<6xf32>, %w2: tensor<6x3x1x1xf32>) -> tensor<2x6x3x5xf32> {
  %x = view.permute %xl {dims = [0, 3, 1, 2]} : tensor<2x3x5x4xf32> -> tensor<2x4x3x5xf32>
  %c = tensor.conv %x, %w, %b : tensor<2x4x3x5xf32>, tensor<6x4x1x1xf32>, tensor<6xf32> -> tensor<2x6x3x5xf32>
  %g = tensor.gelu %c : tensor<2x6x3x5xf32>
  %r = tensor.conv %g, %w2 {groups = 2} : tensor<2x6x3x5xf32>, tensor<6x3x1x1xf32> -> tensor<2x6x3x5xf32>
  return %r : tensor<2x6x3x5xf32>
}
