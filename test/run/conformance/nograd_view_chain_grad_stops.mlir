// Views of a view made under no_grad (select, and an as_strided that functionalize
// replays from the storage base) carry no gradient; ops on them still require grad.
func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3x2xf32>) {
  %c = "tensor.mul"(%arg0, %arg0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %v0 = "view.transpose"(%c) {aot.no_grad, dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %v1 = "view.select"(%v0) {dim = 1 : i64, index = 1 : i64} : (tensor<3x2xf32>) -> tensor<3xf32>
  %v2 = "view.as_strided"(%v0) {size = [3], stride = [1], offset = 0 : i64} : (tensor<3x2xf32>) -> tensor<3xf32>
  %s = "tensor.mul"(%v1, %v2) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %w = "tensor.sin"(%s) : (tensor<3xf32>) -> tensor<3xf32>
  %t = "tensor.add"(%w, %v1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %t, %v0 : tensor<3xf32>, tensor<3x2xf32>
}
