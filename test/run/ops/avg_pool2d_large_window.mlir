/// tensor.avg_pool: a 9×9 window (looped taps).
func.func @main(%a0: tensor<1x2x9x9xf32>) -> (tensor<1x2x1x1xf32>) {
  %0 = tensor.avg_pool %a0 {kernel_size = [9, 9], stride = [1, 1]} : tensor<1x2x9x9xf32> -> tensor<1x2x1x1xf32>
  return %0 : tensor<1x2x1x1xf32>
}
