// arg0.set_(a view of an intermediate) and that intermediate returned: after the call
// the output shares arg0's new storage (alias_of_arg 0), as in PyTorch.
func.func @main(%arg0: tensor<2x1x3xf32>, %arg1: tensor<3x3x4xf32>) -> (tensor<3x3x4xf32>) {
  %v0 = "tensor.sign"(%arg1) : (tensor<3x3x4xf32>) -> tensor<3x3x4xf32>
  %v1 = "view.reshape"(%v0) {shape = [4, 3, 3]} : (tensor<3x3x4xf32>) -> tensor<4x3x3xf32>
  %v2 = "mut.set_"(%arg0, %v1) : (tensor<2x1x3xf32>, tensor<4x3x3xf32>) -> tensor<4x3x3xf32>
  return %v0 : tensor<3x3x4xf32>
}
