// set_ (no_grad) of an argument onto a self-overlapping view argument of another
// storage that is itself merged into a synthetic base: the argument takes the base's
// storage at the view's layout.
func.func @main(%arg0: tensor<3x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x2xf32>) -> (tensor<3x3xf32>) {
  %v0 = "mut.set_"(%arg2, %arg0) {aot.no_grad} : (tensor<2x2xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  "mut.mul_"(%arg1, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> ()
  return %arg0 : tensor<3x3xf32>
}
