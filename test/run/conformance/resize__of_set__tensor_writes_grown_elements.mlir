// y.set_(x), then resize_ of y grows x's storage and writes reach the new
// element: it is written back although x's own layout does not hold it.
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<1x3xf32>) -> (tensor<f32>, tensor<3xf32>) {
  %v0 = "mut.set_"(%arg1, %arg0) : (tensor<1x3xf32>, tensor<2xf32>) -> tensor<2xf32>
  "mut.mul_"(%v0, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> ()
  %v1 = "mut.resize_"(%v0) {size = [3]} : (tensor<2xf32>) -> tensor<3xf32>
  "mut.fill_"(%v1) {value = -0.99 : f64, aot.no_grad} : (tensor<3xf32>) -> ()
  %v2 = "tensor.cat"(%v1, %v1, %arg0) {dim = -1 : i64} : (tensor<3xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<8xf32>
  %v3 = "mut.squeeze_"(%v2) {aot.no_grad} : (tensor<8xf32>) -> tensor<8xf32>
  %v4 = "mut.as_strided_"(%v3) {size = [3], stride = [3], offset = 0 : i64} : (tensor<8xf32>) -> tensor<3xf32>
  %v5 = "view.select"(%v4) {dim = 0 : i64, index = -2 : i64} : (tensor<3xf32>) -> tensor<f32>
  "mut.tanh_"(%v1) : (tensor<3xf32>) -> ()
  "mut.relu_"(%v4) : (tensor<3xf32>) -> ()
  %v6 = "view.view"(%v1) {shape = [3]} : (tensor<3xf32>) -> tensor<3xf32>
  %v7 = "tensor.full"() {value = -1.74 : f64} : () -> tensor<f32>
  "mut.copy_"(%v5, %v7) : (tensor<f32>, tensor<f32>) -> ()
  return %v5, %v4 : tensor<f32>, tensor<3xf32>
}
