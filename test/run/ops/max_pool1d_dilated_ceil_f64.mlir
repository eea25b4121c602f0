/// tensor.max_pool: 1-d, dilation 2, ceil mode (a last window that overhangs the padding).
func.func @main(%a0: tensor<1x2x10xf64>) -> (tensor<1x2x5xf64>, tensor<1x2x5xi64>) {
  %0:2 = tensor.max_pool %a0 {kernel_size = [3], stride = [2], padding = [1], dilation = [2], ceil_mode} : tensor<1x2x10xf64> -> (tensor<1x2x5xf64>, tensor<1x2x5xi64>)
  return %0#0, %0#1 : tensor<1x2x5xf64>, tensor<1x2x5xi64>
}
