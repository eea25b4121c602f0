// set_ under no_grad onto a detached alias, then a no_grad fill_: x keeps
// its autograd identity across both.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
  %v0 = "view.detach"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  "mut.sub_"(%v0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> ()
  %v1 = "mut.set_"(%arg0, %v0) {aot.no_grad} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %v2 = "view.t"(%v0) : (tensor<3xf32>) -> tensor<3xf32>
  "mut.fill_"(%v1) {value = 1.37 : f64, aot.no_grad} : (tensor<3xf32>) -> ()
  return %v1 : tensor<3xf32>
}
