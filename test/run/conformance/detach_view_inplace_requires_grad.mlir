// A write with grad through a view of a detached alias: the detached tensor
// gets a history (PyTorch's CopySlices), its other elements keep their
// values and no gradient; x's own history does not see the write.
func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %v0 = "view.detach"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %v1 = "view.select"(%v0) {dim = 0 : i64, index = 1 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>
  "mut.mul_"(%v1, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> ()
  %v2 = "tensor.mul"(%v0, %v0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %v3 = "tensor.mul"(%arg0, %arg0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %v2, %v3 : tensor<2x3xf32>, tensor<2x3xf32>
}
