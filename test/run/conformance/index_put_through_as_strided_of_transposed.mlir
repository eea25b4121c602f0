// index_put_ (accumulate) through as_strided of an alias of a transposed view
// that exp_ wrote: as_strided addresses the storage of its base value, which
// native code must read in the base's own order, not its temporary's.
func.func @main(%arg0: tensor<2x2x3xf32>) -> (tensor<2x3x2xf32>) {
  %v0 = "view.transpose"(%arg0) {dim0 = 2 : i64, dim1 = 1 : i64} : (tensor<2x2x3xf32>) -> tensor<2x3x2xf32>
  "mut.exp_"(%v0) : (tensor<2x3x2xf32>) -> ()
  %v1 = "tensor.abs"(%v0) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %v2 = "tensor.full"() {value = 0.49 : f64} : () -> tensor<f32>
  %v3 = "view.alias"(%v0) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %v4 = "view.as_strided"(%v3) {size = [3, 4], stride = [4, 1], offset = 0 : i64} : (tensor<2x3x2xf32>) -> tensor<3x4xf32>
  %v5 = "tensor.constant"() {value = dense<[0, 2]> : tensor<2xi64>} : () -> tensor<2xi64>
  "mut.index_put_"(%v4, %v5, %v2) {accumulate} : (tensor<3x4xf32>, tensor<2xi64>, tensor<f32>) -> ()
  return %v1 : tensor<2x3x2xf32>
}
