// as_strided_ (no_grad) of an argument to a late offset, then resize_ of a view
// of it that grows the storage: the argument keeps its offset after the call (the
// in-graph resize_ grows the storage, as_strided_ places the argument).
func.func @main(%arg0: tensor<4x1x2xf32>) -> (tensor<1x2xf32>) {
  %v0 = "mut.as_strided_"(%arg0) {size = [1], stride = [1], offset = 7 : i64, aot.no_grad} : (tensor<4x1x2xf32>) -> tensor<1xf32>
  %v1 = "view.squeeze"(%v0) {dim = 0 : i64} : (tensor<1xf32>) -> tensor<f32>
  %v3 = "mut.resize_"(%v1) {size = [2]} : (tensor<f32>) -> tensor<2xf32>
  "mut.fill_"(%v3) {value = 1.72 : f64, aot.no_grad} : (tensor<2xf32>) -> ()
  %v4 = "view.as_strided"(%v0) {size = [1, 2], stride = [2, 1], offset = 4 : i64} : (tensor<1xf32>) -> tensor<1x2xf32>
  return %v4 : tensor<1x2xf32>
}
