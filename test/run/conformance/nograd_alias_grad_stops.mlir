// A view made under no_grad of a tensor that requires grad reports requires_grad,
// but gradient never flows through it: d(alias_nograd(x) * x)/dx is x, not 2x.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
  %v0 = "view.alias"(%arg0) {aot.no_grad} : (tensor<3xf32>) -> tensor<3xf32>
  %v1 = "tensor.mul"(%v0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %v1 : tensor<3xf32>
}
