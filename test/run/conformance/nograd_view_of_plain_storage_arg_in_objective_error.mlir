// golden: expect-error
// A view made under no_grad of an argument that does not require grad, while a
// sibling view of the same storage is then multiplied in place by a tensor that
// does: the storage's base now requires grad, and so does the no_grad view, whose
// use in the objective raises.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<f32>) -> (tensor<4x1xf32>) {
  %v3 = "view.unsqueeze"(%arg0) {dim = -1 : i64, aot.no_grad} : (tensor<4xf32>) -> tensor<4x1xf32>
  %v4 = "view.t"(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
  "mut.mul_"(%v4, %arg2) : (tensor<4xf32>, tensor<f32>) -> ()
  return %v3 : tensor<4x1xf32>
}
