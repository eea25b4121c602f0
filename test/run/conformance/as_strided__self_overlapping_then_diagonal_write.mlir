// as_strided_ of an argument to a self-overlapping layout, then neg_ through its
// diagonal (distinct elements): every storage element the diagonal reaches is negated
// once; scattering the whole self-overlapping value back would restore stale ones.
func.func @main(%arg0: tensor<2x2xf32>) -> (tensor<1xf32>) {
  %v0 = "tensor.full"() {value = -0.09 : f64} : () -> tensor<1xf32>
  %v1 = "view.slice"(%v0) {dim = 0 : i64, start = 0 : i64, end = 1 : i64, step = 3 : i64} : (tensor<1xf32>) -> tensor<1xf32>
  %v2 = "mut.as_strided_"(%arg0) {size = [3, 3], stride = [1, 1], offset = 2 : i64} : (tensor<2x2xf32>) -> tensor<3x3xf32>
  %v3 = "view.diagonal"(%v2) {offset = 0 : i64, dim1 = 0 : i64, dim2 = 1 : i64} : (tensor<3x3xf32>) -> tensor<3xf32>
  "mut.neg_"(%v3) : (tensor<3xf32>) -> ()
  return %v1 : tensor<1xf32>
}
