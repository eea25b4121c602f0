/// tensor.avg_pool: ceil mode and padding left out of the divisors.
func.func @main(%a0: tensor<2x2x5x6xf32>) -> (tensor<2x2x3x4xf32>) {
  %0 = tensor.avg_pool %a0 {kernel_size = [3, 2], stride = [2, 2], padding = [1, 1], ceil_mode, count_include_pad = false} : tensor<2x2x5x6xf32> -> tensor<2x2x3x4xf32>
  return %0 : tensor<2x2x3x4xf32>
}
