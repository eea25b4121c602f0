// add_ into an argument, then set_ of it onto a constant: a view of its old
// storage taken before the set_ sees the sum.
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>) {
  "mut.add_"(%arg1, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  %v0 = "tensor.full"() {value = 0.46 : f64} : () -> tensor<f32>
  %v1 = "view.transpose"(%arg1) {dim0 = 0 : i64, dim1 = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %v2 = "mut.set_"(%arg1, %v0) : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return %v1 : tensor<2xf32>
}
