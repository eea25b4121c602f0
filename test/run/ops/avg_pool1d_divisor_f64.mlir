/// tensor.avg_pool: 1-d with divisor_override.
func.func @main(%a0: tensor<1x3x7xf64>) -> (tensor<1x3x4xf64>) {
  %0 = tensor.avg_pool %a0 {kernel_size = [3], stride = [2], padding = [1], divisor_override = 2} : tensor<1x3x7xf64> -> tensor<1x3x4xf64>
  return %0 : tensor<1x3x4xf64>
}
