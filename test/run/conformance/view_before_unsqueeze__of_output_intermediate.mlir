// A view of an intermediate taken before unsqueeze_ of the intermediate, both
// returned: the view keeps the shape it had (regenerated in the intermediate's
// storage order, not replayed on the changed output).
func.func @main(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>) -> (tensor<4x4x1xf32>, tensor<4x4xf32>) {
  %v0 = "tensor.sub"(%arg0, %arg1) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %v2 = "view.transpose"(%v0) {dim0 = -2 : i64, dim1 = 0 : i64} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %v5 = "mut.unsqueeze_"(%v0) {dim = 2 : i64} : (tensor<4x4xf32>) -> tensor<4x4x1xf32>
  return %v5, %v2 : tensor<4x4x1xf32>, tensor<4x4xf32>
}
