// Data mutation, then as_strided_ moving one of two arguments of one storage
// off the elements it wrote: they are written back through its old layout.
func.func @main(%arg0: tensor<5xf32>, %arg1: tensor<2x2xf32>) -> (tensor<1xf32>) {
  %v0 = "tensor.full"() {value = -1.8 : f64} : () -> tensor<f32>
  "mut.sub_"(%arg0, %v0) : (tensor<5xf32>, tensor<f32>) -> ()
  %v1 = "mut.as_strided_"(%arg0) {size = [2, 4], stride = [3, 2], offset = 0 : i64} : (tensor<5xf32>) -> tensor<2x4xf32>
  %v2 = "view.diagonal"(%arg1) {offset = -1 : i64, dim1 = -2 : i64, dim2 = 1 : i64} : (tensor<2x2xf32>) -> tensor<1xf32>
  return %v2 : tensor<1xf32>
}
