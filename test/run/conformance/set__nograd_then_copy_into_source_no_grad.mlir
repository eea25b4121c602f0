// set_ under no_grad of a tensor without grad onto one that requires grad: it
// shares the data but not the history, so copying it back into the source gives
// the source no gradient from its old value.
func.func @main(%arg0: tensor<1x2xf32>, %arg1: tensor<3x3xf32>) -> (tensor<1x2xf32>) {
  %v0 = "mut.set_"(%arg1, %arg0) {aot.no_grad} : (tensor<3x3xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
  "mut.copy_"(%arg0, %v0) : (tensor<1x2xf32>, tensor<1x2xf32>) -> ()
  return %arg0 : tensor<1x2xf32>
}
