// resize_ to the sizes a tensor already has keeps its strides (PyTorch
// returns early): the transposed view stays transposed.
func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<3xf32>) {
  %v0 = "view.transpose"(%arg0) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %v1 = "mut.resize_"(%v0) {size = [3, 2]} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %v2 = "view.select"(%v1) {dim = 1 : i64, index = 0 : i64} : (tensor<3x2xf32>) -> tensor<3xf32>
  return %v2 : tensor<3xf32>
}
