// resize_ through a detached alias grows the storage: the alias is still
// detached afterwards (its gradient stops), x.add_(alias) counts x once.
func.func @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<f32>) -> (tensor<f32>, tensor<4xf32>) {
  %v0 = "view.detach"(%arg2) : (tensor<f32>) -> tensor<f32>
  "mut.zero_"(%v0) : (tensor<f32>) -> ()
  %v1 = "view.alias"(%v0) : (tensor<f32>) -> tensor<f32>
  "mut.mul_"(%v1, %v0) {aot.no_grad} : (tensor<f32>, tensor<f32>) -> ()
  %v4:2 = "view.unbind"(%arg0) {dim = -1 : i64, aot.no_grad} : (tensor<4x2xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %v5 = "mut.resize_"(%v1) {size = [3, 1], aot.no_grad} : (tensor<f32>) -> tensor<3x1xf32>
  "mut.fill_"(%v5) {value = 0.08 : f64, aot.no_grad} : (tensor<3x1xf32>) -> ()
  "mut.add_"(%arg2, %v0) : (tensor<f32>, tensor<f32>) -> ()
  %v6 = "tensor.full"() {value = 0.99 : f64} : () -> tensor<f32>
  "mut.div_"(%v0, %v6) {aot.no_grad} : (tensor<f32>, tensor<f32>) -> ()
  return %v6, %v4#0 : tensor<f32>, tensor<4xf32>
}
