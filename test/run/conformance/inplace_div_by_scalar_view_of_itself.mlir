// An argument divided in place by a scalar view of its own first element (read
// through a reshape copy and a resize_): every element is divided by the value from
// before the write (native code must not fuse the read into the writing loop).
func.func @main(%arg0: tensor<3x2xf32>) -> (tensor<6xf32>) {
  %v0 = "view.transpose"(%arg0) {dim0 = -2 : i64, dim1 = -1 : i64} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %v1 = "view.unsqueeze"(%v0) {dim = -2 : i64} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  %v2 = "view.reshape"(%v1) {shape = [6]} : (tensor<2x1x3xf32>) -> tensor<6xf32>
  %v5:2 = "view.split"(%v2) {dim = 0 : i64, sizes = [5, 1]} : (tensor<6xf32>) -> (tensor<5xf32>, tensor<1xf32>)
  %v6 = "mut.resize_"(%v5#0) {size = []} : (tensor<5xf32>) -> tensor<f32>
  "mut.div_"(%v1, %v6) : (tensor<2x1x3xf32>, tensor<f32>) -> ()
  return %v2 : tensor<6xf32>
}
