// A view made under no_grad of a duplicated view of a differentiable base,
// returned: it requires grad but has no history, so the base gets no gradient.
func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>) {
  %v1 = "view.view"(%arg1) {shape = [3], aot.no_grad} : (tensor<3xf32>) -> tensor<3xf32>
  return %v1 : tensor<3xf32>
}
