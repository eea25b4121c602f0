// golden: expect-error
// A detached alias gets a history of its own (add_, mul_ by the tensor that
// requires grad); set_ under no_grad keeps it, and the mul_'s saved values are
// then changed: backward raises.
func.func @main(%arg0: tensor<3x4x2xf32>) -> (tensor<3x4x2xf32>) {
  %v0 = "view.detach"(%arg0) : (tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  "mut.add_"(%v0, %arg0) : (tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> ()
  "mut.mul_"(%v0, %arg0) : (tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> ()
  %v1 = "mut.set_"(%v0, %arg0) {aot.no_grad} : (tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  return %v1 : tensor<3x4x2xf32>
}
