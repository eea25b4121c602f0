// arg1 is set_ onto arg0's storage, then arg0 is set_ onto arg2's: the
// epilogue runs arg1's set_ first, while arg0 still holds the storage
// arg1 must end up in.
func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<3xf32>, %arg2: tensor<4x2xf32>) -> (tensor<4x2xf32>) {
  %v1 = "mut.set_"(%arg1, %arg0) {aot.no_grad} : (tensor<3xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %v2 = "mut.set_"(%arg0, %arg2) {aot.no_grad} : (tensor<2x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  "mut.relu_"(%v2) {aot.no_grad} : (tensor<4x2xf32>) -> ()
  return %arg2 : tensor<4x2xf32>
}
