// d = x.detach(); d.copy_(y) gives d a history; a view of d whose metadata
// changes under no_grad still reads its gradient through d's history.
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>) {
  %v0 = "view.detach"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
  "mut.copy_"(%v0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> ()
  %v1 = "view.expand"(%v0) {shape = [2]} : (tensor<2xf32>) -> tensor<2xf32>
  %v2 = "mut.transpose_"(%v1) {dim0 = 0 : i64, dim1 = 0 : i64, aot.no_grad} : (tensor<2xf32>) -> tensor<2xf32>
  return %v2 : tensor<2xf32>
}
