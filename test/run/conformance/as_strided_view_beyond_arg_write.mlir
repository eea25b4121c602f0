// tanh_ through an as_strided view of a storage-view argument that reaches storage
// elements outside the argument: the storage is passed whole and its final value
// (every element written) is functionalize's own, not rebuilt from the argument.
func.func @main(%arg0: tensor<2xf32>) -> (tensor<2x1x2xf32>) {
  %v0 = "view.as_strided"(%arg0) {size = [2, 2], stride = [2, 1], offset = 5 : i64} : (tensor<2xf32>) -> tensor<2x2xf32>
  "mut.tanh_"(%v0) : (tensor<2x2xf32>) -> ()
  %v1 = "view.unsqueeze"(%v0) {dim = -2 : i64} : (tensor<2x2xf32>) -> tensor<2x1x2xf32>
  return %v1 : tensor<2x1x2xf32>
}
