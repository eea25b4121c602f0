// golden: no-grad-check train-refused (autograd drops element 0's gradient through the unsqueeze, taken before as_strided_ moved its base: training refuses that, see docs/reference/semantics.md)
// An intermediate's storage holds two elements; as_strided_ then makes the
// intermediate a scalar at storage offset 1, and it is returned beside a view
// taken before (unsqueeze of both elements). Eager returns both in one storage,
// so the first output is rebuilt in a fresh storage of eager's layout: the
// second output views that storage and must still see element 0, which only
// it covers (the storage once held the first output's own element alone).
func.func @main(%arg0: tensor<1xf32>, %arg1: tensor<2xf32>) -> (tensor<f32>, tensor<2x1xf32>, tensor<2xf32>) {
  %v0 = "tensor.sub"(%arg0, %arg1) : (tensor<1xf32>, tensor<2xf32>) -> tensor<2xf32>
  %v1 = "view.unsqueeze"(%v0) {dim = 1 : i64} : (tensor<2xf32>) -> tensor<2x1xf32>
  %v2 = "mut.as_strided_"(%v0) {size = [], stride = [], offset = 1 : i64} : (tensor<2xf32>) -> tensor<f32>
  return %v2, %v1, %arg1 : tensor<f32>, tensor<2x1xf32>, tensor<2xf32>
}
