// golden: expect-error
// A write through an expand of a tensor set_ moved (under no_grad): the
// elements are distinct, so inference answers; the backward raises.
func.func @main(%arg0: tensor<f32>, %arg1: tensor<4x3xf32>) -> (tensor<f32>, tensor<4x3xf32>) {
  %v0 = "view.squeeze"(%arg1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %v1 = "mut.set_"(%v0, %arg1) {aot.no_grad} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  "mut.div_"(%v1, %arg1) : (tensor<4x3xf32>, tensor<4x3xf32>) -> ()
  %v2 = "view.expand"(%v1) {shape = [4, 3]} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  "mut.exp_"(%arg1) : (tensor<4x3xf32>) -> ()
  %v3 = "tensor.full"() {value = 0.03 : f64} : () -> tensor<3xf32>
  %v4 = "tensor.sub"(%v2, %v3) {aot.no_grad} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  %v5 = "view.detach"(%v1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  "mut.clamp_"(%v5) {min = -0.21 : f64} : (tensor<4x3xf32>) -> ()
  "mut.copy_"(%v2, %arg0) : (tensor<4x3xf32>, tensor<f32>) -> ()
  %v6 = "view.select"(%v3) {dim = 0 : i64, index = 0 : i64} : (tensor<3xf32>) -> tensor<f32>
  %v7 = "tensor.full"() {value = 1.03 : f64} : () -> tensor<f32>
  "mut.copy_"(%v6, %v7) : (tensor<f32>, tensor<f32>) -> ()
  return %v7, %v5 : tensor<f32>, tensor<4x3xf32>
}
