// golden: expect-error
// An in-place write in grad mode to an unbind output made under no_grad of a
// tensor that requires grad: PyTorch's 'A view was created in no_grad mode' error.
func.func @main(%arg0: tensor<4x4x4xf32>, %arg1: tensor<4x4x4xf32>) -> (tensor<4x4xf32>) {
  %v0:4 = "view.unbind"(%arg1) {dim = 1 : i64, aot.no_grad} : (tensor<4x4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)
  "mut.zero_"(%v0#3) : (tensor<4x4xf32>) -> ()
  return %v0#3 : tensor<4x4xf32>
}
