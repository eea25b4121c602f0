// golden: expect-error
// An in-place op through an as_strided view of a detached tensor makes it
// require grad: inference answers; the backward raises PyTorch's error.
func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>) -> (tensor<6xf32>, tensor<2xf32>) {
  "mut.zero_"(%arg2) : (tensor<2xf32>) -> ()
  %v0 = "tensor.cat"(%arg2, %arg1, %arg2) {dim = 0 : i64} : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<6xf32>
  %v1 = "tensor.full"() {value = 0.6 : f64} : () -> tensor<f32>
  %v2 = "tensor.add"(%arg1, %v1) : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  %v3 = "mut.set_"(%v2, %v0) {aot.no_grad} : (tensor<2xf32>, tensor<6xf32>) -> tensor<6xf32>
  %v4 = "mut.t_"(%arg2) {aot.no_grad} : (tensor<2xf32>) -> tensor<2xf32>
  %v5 = "view.view"(%v4) {shape = [-1], aot.no_grad} : (tensor<2xf32>) -> tensor<2xf32>
  %v6 = "mut.squeeze_"(%v3) {aot.no_grad} : (tensor<6xf32>) -> tensor<6xf32>
  %v7 = "view.as_strided"(%v6) {size = [1, 2], stride = [1, 3], offset = 1 : i64} : (tensor<6xf32>) -> tensor<1x2xf32>
  %v8 = "mut.unsqueeze_"(%v7) {dim = -1 : i64, aot.no_grad} : (tensor<1x2xf32>) -> tensor<1x2x1xf32>
  "mut.add_"(%v8, %v1) : (tensor<1x2x1xf32>, tensor<f32>) -> ()
  "mut.sub_"(%v6, %v0) : (tensor<6xf32>, tensor<6xf32>) -> ()
  return %v6, %v5 : tensor<6xf32>, tensor<2xf32>
}
