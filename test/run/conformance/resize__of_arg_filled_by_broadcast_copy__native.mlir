// x.copy_(scalar) makes x's storage value a broadcast of the scalar; a
// resize_ then reads it with as_strided, which addresses the value's own
// elements (native code read past the scalar's one-element buffer).
func.func @main(%arg0: tensor<f32>, %arg1: tensor<f32>, %arg2: tensor<4x2xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<f32>) {
  "mut.copy_"(%arg2, %arg0) : (tensor<4x2xf32>, tensor<f32>) -> ()
  %v0 = "mut.resize_"(%arg2) {size = [2, 4], aot.no_grad} : (tensor<4x2xf32>) -> tensor<2x4xf32>
  %v1 = "tensor.sin"(%arg1) : (tensor<f32>) -> tensor<f32>
  %v2 = "view.select"(%v0) {dim = 0 : i64, index = -1 : i64} : (tensor<2x4xf32>) -> tensor<4xf32>
  "mut.relu_"(%v2) : (tensor<4xf32>) -> ()
  "mut.fill_"(%v2) {value = -1.81 : f64} : (tensor<4xf32>) -> ()
  %v3 = "tensor.full"() {value = 0.08 : f64} : () -> tensor<f32>
  "mut.copy_"(%v1, %v3) : (tensor<f32>, tensor<f32>) -> ()
  return %v3, %v2, %v1 : tensor<f32>, tensor<4xf32>, tensor<f32>
}
