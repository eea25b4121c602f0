/// tensor.conv: a dense 1-d convolution with stride 3, padding 2 and dilation 2, in f64.
func.func @main(%x: tensor<2x3x10xf64>, %w: tensor<5x3x4xf64>, %b: tensor<5xf64>) -> tensor<2x5x3xf64> {
  %0 = tensor.conv %x, %w, %b {stride = [3], padding = [2], dilation = [2]} : tensor<2x3x10xf64>, tensor<5x3x4xf64>, tensor<5xf64> -> tensor<2x5x3xf64>
  return %0 : tensor<2x5x3xf64>
}
