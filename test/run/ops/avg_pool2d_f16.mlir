/// tensor.avg_pool: 2×2 in f16 (summed in f32), padding counted.
func.func @main(%a0: tensor<1x2x6x6xf16>) -> (tensor<1x2x4x4xf16>) {
  %0 = tensor.avg_pool %a0 {kernel_size = [2, 2], padding = [1, 1]} : tensor<1x2x6x6xf16> -> tensor<1x2x4x4xf16>
  return %0 : tensor<1x2x4x4xf16>
}
