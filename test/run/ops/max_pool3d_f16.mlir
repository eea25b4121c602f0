/// tensor.max_pool: 3-d in f16.
func.func @main(%a0: tensor<1x2x3x4x4xf16>) -> (tensor<1x2x1x2x2xf16>, tensor<1x2x1x2x2xi64>) {
  %0:2 = tensor.max_pool %a0 {kernel_size = [2, 2, 2]} : tensor<1x2x3x4x4xf16> -> (tensor<1x2x1x2x2xf16>, tensor<1x2x1x2x2xi64>)
  return %0#0, %0#1 : tensor<1x2x1x2x2xf16>, tensor<1x2x1x2x2xi64>
}
