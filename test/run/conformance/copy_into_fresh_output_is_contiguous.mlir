// A fresh tensor filled by copy_ from a strided view (or a broadcast) is
// returned as its own contiguous tensor, not as the view it was copied from
// (native code folds the copy into the view).
func.func @main(%arg0: tensor<3x3xf32>, %arg1: tensor<1xf32>) -> (tensor<3xf32>, tensor<2xf32>) {
  %v0 = "view.select"(%arg0) {dim = 1 : i64, index = 2 : i64} : (tensor<3x3xf32>) -> tensor<3xf32>
  %v1 = "tensor.full"() {value = 0.0 : f64} : () -> tensor<3xf32>
  "mut.copy_"(%v1, %v0) : (tensor<3xf32>, tensor<3xf32>) -> ()
  %v2 = "tensor.full"() {value = 0.0 : f64} : () -> tensor<2xf32>
  "mut.copy_"(%v2, %arg1) : (tensor<2xf32>, tensor<1xf32>) -> ()
  return %v1, %v2 : tensor<3xf32>, tensor<2xf32>
}
