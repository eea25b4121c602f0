// golden: expect-error
/// tensor.max_pool_grad: an index past the plane is an error.
func.func @main(%a0: tensor<1x1x1x2xf32>, %a1: tensor<1x1x1x2xi64>) -> (tensor<1x1x3x3xf32>) {
  %0 = tensor.max_pool_grad %a0, %a1 {input_shape = [1, 1, 3, 3]} : tensor<1x1x1x2xf32>, tensor<1x1x1x2xi64> -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}
