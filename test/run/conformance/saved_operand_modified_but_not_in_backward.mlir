// y = x.sin() saves x, and x is changed in place afterwards, but y is not
// in the objective: sin's backward never runs, so nothing is raised.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
  %x = "tensor.mul"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = "tensor.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %one = "tensor.full"() {value = 1.0 : f64} : () -> tensor<f32>
  "mut.add_"(%x, %one) : (tensor<3xf32>, tensor<f32>) -> ()
  return %x : tensor<3xf32>
}
