// A view of a self-overlapping leaf taken before a no_grad fill_: PyTorch
// regenerates its history as an as_strided of the leaf, whose gradient the
// positions sharing an element split; the write-back into the leaf is legal.
func.func @main(%arg0: tensor<3x2xf32>, %arg1: tensor<3x2xf32>) -> (tensor<2xf32>) {
  %v0 = "view.expand"(%arg0) {shape = [3, 2]} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  "mut.fill_"(%arg1) {value = -1.88 : f64, aot.no_grad} : (tensor<3x2xf32>) -> ()
  %v1 = "view.diagonal"(%v0) {offset = 0 : i64, dim1 = -1 : i64, dim2 = 0 : i64} : (tensor<3x2xf32>) -> tensor<2xf32>
  %v2 = "view.reshape"(%v1) {shape = [2]} : (tensor<2xf32>) -> tensor<2xf32>
  return %v1 : tensor<2xf32>
}
