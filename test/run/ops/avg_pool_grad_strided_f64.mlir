/// tensor.avg_pool_grad: overlapping windows, stride 2, padding 1.
func.func @main(%a0: tensor<1x2x3x3xf64>) -> (tensor<1x2x5x6xf64>) {
  %0 = tensor.avg_pool_grad %a0 {kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], input_shape = [1, 2, 5, 6]} : tensor<1x2x3x3xf64> -> tensor<1x2x5x6xf64>
  return %0 : tensor<1x2x5x6xf64>
}
