// A view taken before as_strided_ of its base argument, then written: the
// argument's final layout no longer covers the written elements, so the new
// data goes back through the layout the argument had at the call.
func.func @main(%arg0: tensor<2x2xf32>) -> (tensor<2x2xf32>) {
  %v0 = "view.slice"(%arg0) {dim = 1 : i64, start = 0 : i64, end = 5 : i64, step = 1 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %v1 = "mut.as_strided_"(%arg0) {size = [1, 2], stride = [2, 1], offset = 2 : i64} : (tensor<2x2xf32>) -> tensor<1x2xf32>
  "mut.neg_"(%v0) : (tensor<2x2xf32>) -> ()
  %v2 = "view.alias"(%v0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %v2 : tensor<2x2xf32>
}
