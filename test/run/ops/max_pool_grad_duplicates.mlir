/// tensor.max_pool_grad: indices that repeat add up.
func.func @main(%a0: tensor<1x2x2x2xf32>, %a1: tensor<1x2x2x2xi64>) -> (tensor<1x2x3x3xf32>) {
  %0 = tensor.max_pool_grad %a0, %a1 {input_shape = [1, 2, 3, 3]} : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64> -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
