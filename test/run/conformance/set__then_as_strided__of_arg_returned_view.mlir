// golden: expect-error
// A view of an argument returned after set_ and as_strided_ of that argument
// (kept in the graph): the view stays the argument's value at the call.
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %v0 = "view.t"(%arg2) : (tensor<2xf32>) -> tensor<2xf32>
  %v1 = "mut.set_"(%arg2, %arg0) {aot.no_grad} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %v2 = "view.permute"(%v1) {dims = [0]} : (tensor<2xf32>) -> tensor<2xf32>
  %v3 = "view.view"(%v2) {shape = [2]} : (tensor<2xf32>) -> tensor<2xf32>
  %v4 = "mut.as_strided_"(%v1) {size = [3], stride = [2], offset = 0 : i64, aot.no_grad} : (tensor<2xf32>) -> tensor<3xf32>
  return %v2, %v0 : tensor<2xf32>, tensor<2xf32>
}
