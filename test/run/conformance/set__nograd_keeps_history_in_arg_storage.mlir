// set_ under no_grad of a clone of gelu(x) onto x: the clone shares x's storage
// (an alias of x) but keeps its own history, so its gradient goes through gelu.
func.func @main(%arg0: tensor<2xf32>) -> (tensor<2xf32>) {
  %v1 = "tensor.gelu"(%arg0) {approximate = "tanh"} : (tensor<2xf32>) -> tensor<2xf32>
  %v3 = "tensor.clone"(%v1) : (tensor<2xf32>) -> tensor<2xf32>
  %v4 = "mut.set_"(%v3, %arg0) {aot.no_grad} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %v4 : tensor<2xf32>
}
