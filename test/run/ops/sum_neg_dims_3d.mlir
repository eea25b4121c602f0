/// tensor.sum over dims [-1, 0] of a 3-D tensor (array<i64> syntax).
func.func @main(%a: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = tensor.sum %a {dims = array<i64: -1, 0>} : tensor<2x3x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
