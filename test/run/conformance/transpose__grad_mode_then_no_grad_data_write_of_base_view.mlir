// A view of a differentiable base changed by transpose_ in grad mode and
// written under no_grad: its new value takes one tangent, counted once.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>) {
  %v0 = "mut.transpose_"(%arg0) {dim0 = 0 : i64, dim1 = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  "mut.clamp_"(%v0) {min = 0.08 : f64, aot.no_grad} : (tensor<4xf32>) -> ()
  "mut.add_"(%arg1, %v0) : (tensor<4xf32>, tensor<4xf32>) -> ()
  %v2 = "view.t"(%v0) {aot.no_grad} : (tensor<4xf32>) -> tensor<4xf32>
  return %v2 : tensor<4xf32>
}
