/// tensor.max_pool: a dilated window whose taps all fall in the padding: -inf, and PyTorch's index (its first tap past 0, outside the input).
func.func @main(%a0: tensor<1x2x2xf32>) -> (tensor<1x2x1xf32>, tensor<1x2x1xi64>) {
  %0:2 = tensor.max_pool %a0 {kernel_size = [2], stride = [1], padding = [1], dilation = [3]} : tensor<1x2x2xf32> -> (tensor<1x2x1xf32>, tensor<1x2x1xi64>)
  return %0#0, %0#1 : tensor<1x2x1xf32>, tensor<1x2x1xi64>
}
