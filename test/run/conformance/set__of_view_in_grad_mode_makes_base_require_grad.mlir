// golden: expect-error
// set_ in grad mode of a view of x onto a tensor that requires grad: x
// requires grad afterwards, though its own data and metadata are unchanged
// (tests/differential.rs; PyTorch's backward raises for set_).
func.func @main(%arg0: tensor<1x1xf32>, %arg1: tensor<4x2xf32>) -> (tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>) {
  %v0 = "mut.set_"(%arg1, %arg0) : (tensor<4x2xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  %v1 = "view.unsqueeze"(%arg0) {dim = -1 : i64} : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
  %v2 = "mut.set_"(%v1, %v0) : (tensor<1x1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  return %v2, %v0, %arg0 : tensor<1x1xf32>, tensor<1x1xf32>, tensor<1x1xf32>
}
