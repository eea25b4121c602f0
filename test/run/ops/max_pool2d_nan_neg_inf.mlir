/// tensor.max_pool: a NaN wins its window (the last one), and a window of -inf reports its first in-bounds element.
func.func @main(%a0: tensor<1x1x4x4xf32>) -> (tensor<1x1x5x5xf32>, tensor<1x1x5x5xi64>) {
  %0:2 = tensor.max_pool %a0 {kernel_size = [2, 2], stride = [1, 1], padding = [1, 1]} : tensor<1x1x4x4xf32> -> (tensor<1x1x5x5xf32>, tensor<1x1x5x5xi64>)
  return %0#0, %0#1 : tensor<1x1x5x5xf32>, tensor<1x1x5x5xi64>
}
