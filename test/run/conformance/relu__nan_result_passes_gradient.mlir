// golden: no-fd (log1p of values <= -1 gives NaN and inf, where finite differences are undefined)
// relu_ of NaN and inf values: PyTorch's threshold_backward zeroes the gradient
// only where the result is <= 0, so a NaN result passes its gradient.
func.func @main(%arg0: tensor<3x4xf32>) -> (tensor<4x3xf32>) {
  %v0 = "tensor.log1p"(%arg0) : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %v1 = "tensor.full"() {value = -0.2 : f64} : () -> tensor<4xf32>
  %v2 = "tensor.mul"(%v0, %v1) : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  "mut.relu_"(%v2) : (tensor<3x4xf32>) -> ()
  %v4 = "view.view"(%v2) {shape = [-1, 3]} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  return %v4 : tensor<4x3xf32>
}
