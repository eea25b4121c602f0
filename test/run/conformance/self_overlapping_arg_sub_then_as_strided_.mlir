// x.sub_(x) through diagonal/t views of a self-overlapping storage-view argument, then
// as_strided_ of the argument onto the zeroed element: reading a self-overlapping
// region back is not the value last scattered there (canonicalize must not fold it).
func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<2xf32>) {
  %v0 = "view.diagonal"(%arg0) {offset = 2 : i64, dim1 = -2 : i64, dim2 = 1 : i64} : (tensor<2x3xf32>) -> tensor<1xf32>
  %v1 = "view.t"(%v0) : (tensor<1xf32>) -> tensor<1xf32>
  "mut.sub_"(%v1, %v0) : (tensor<1xf32>, tensor<1xf32>) -> ()
  %v2 = "mut.as_strided_"(%arg0) {size = [2], stride = [2], offset = 3 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %v2 : tensor<2xf32>
}
