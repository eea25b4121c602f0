// golden: expect-error
// div_ gives a storage view a history (no leaf error for the later set_);
// the backward reaches set_, which PyTorch cannot differentiate.
func.func @main(%arg0: tensor<f32>, %arg1: tensor<2x3xf32>) -> (tensor<f32>) {
  %v0 = "tensor.softmax"(%arg1) {dim = -2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "mut.div_"(%arg1, %arg0) : (tensor<2x3xf32>, tensor<f32>) -> ()
  %v1 = "mut.set_"(%arg1, %arg0) : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
  return %v1 : tensor<f32>
}
