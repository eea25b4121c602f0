// golden: no-fd (ties: finite differences split a tied maximum's gradient; PyTorch gives it to the first)
/// tensor.max_pool: ResNet's 3×3 window, stride 2, padding 1, over values with ties (the first largest wins, in value, index and gradient).
func.func @main(%a0: tensor<2x3x7x8xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>) {
  %0:2 = tensor.max_pool %a0 {kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]} : tensor<2x3x7x8xf32> -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>)
  return %0#0, %0#1 : tensor<2x3x4x4xf32>, tensor<2x3x4x4xi64>
}
