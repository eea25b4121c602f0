// add_ through an alias, then a detached view of it, then as_strided_ of the
// argument: the output read through the detached view sees the new values.
func.func @main(%arg0: tensor<2xf32>) -> (tensor<f32>) {
  %v0 = "view.alias"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
  %v1 = "view.squeeze"(%v0) {dim = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %v2 = "tensor.full"() {value = -1.18 : f64} : () -> tensor<1xf32>
  "mut.add_"(%v0, %v2) : (tensor<2xf32>, tensor<1xf32>) -> ()
  %v3 = "view.detach"(%v1) : (tensor<2xf32>) -> tensor<2xf32>
  %v4 = "mut.as_strided_"(%arg0) {size = [1], stride = [3], offset = 0 : i64} : (tensor<2xf32>) -> tensor<1xf32>
  %v5:2 = "view.unbind"(%v3) {dim = 0 : i64} : (tensor<2xf32>) -> (tensor<f32>, tensor<f32>)
  return %v5#1 : tensor<f32>
}
