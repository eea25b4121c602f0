/// tensor.max_pool: a 10×10 window (more taps than a loop body unrolls).
func.func @main(%a0: tensor<1x2x10x10xf32>) -> (tensor<1x2x1x1xf32>, tensor<1x2x1x1xi64>) {
  %0:2 = tensor.max_pool %a0 {kernel_size = [10, 10]} : tensor<1x2x10x10xf32> -> (tensor<1x2x1x1xf32>, tensor<1x2x1x1xi64>)
  return %0#0, %0#1 : tensor<1x2x1x1xf32>, tensor<1x2x1x1xi64>
}
