// golden: expect-error
// The same with views of a base that requires grad: inference answers;
// the backward raises PyTorch's error for the set_ recorded in grad mode.
func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<f32>) {
  %v0 = "mut.set_"(%arg0, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %v1 = "tensor.full"() {value = 0.55 : f64} : () -> tensor<f32>
  %v2 = "mut.set_"(%arg1, %v1) {aot.no_grad} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %v2 : tensor<f32>
}
