/// Returning the arguments themselves: outputs alias args 0 and 1; the
/// leaf requires grad and its gradient is the tangent.
func.func @main(%x: tensor<3xf32>, %y: tensor<2xi64>) -> (tensor<3xf32>, tensor<2xi64>, tensor<3xf32>) {
  %0 = tensor.neg %x : tensor<3xf32>
  return %x, %y, %0 : tensor<3xf32>, tensor<2xi64>, tensor<3xf32>
}
