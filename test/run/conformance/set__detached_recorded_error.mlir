// golden: expect-error
// set_ in grad mode of a detached alias onto a tensor that requires grad: the
// alias takes the set_ node as its history, which has no derivative.
func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>) {
  %v0 = "view.detach"(%arg0) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %v1 = "mut.set_"(%v0, %arg1) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %v1 : tensor<3xf32>
}
