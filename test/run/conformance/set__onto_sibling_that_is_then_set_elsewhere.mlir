// An argument set_ onto a sibling's storage, which the sibling then leaves
// by a set_ of its own: the first keeps the sibling's old storage. The
// graph's value for it is read before the sibling's epilogue set_ (after
// it, the sibling's value is dead).
func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<f32>) {
  %v0 = "mut.set_"(%arg0, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %v1 = "tensor.full"() {value = 0.55 : f64} : () -> tensor<f32>
  %v2 = "mut.set_"(%arg1, %v1) {aot.no_grad} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  return %v2 : tensor<f32>
}
