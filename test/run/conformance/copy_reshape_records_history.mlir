// golden: expect-error
// A reshape that must copy is an op autograd records: the leaf's gradient
// accumulator keeps the shape it had then, and a gradient of the shape t_
// gave it later is PyTorch's invalid-gradient error.
func.func @main(%arg0: tensor<3x2xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<3x2xf32>) -> (tensor<3xf32>) {
  %v0 = "view.reshape"(%arg1) {shape = [1, 6]} : (tensor<3x2xf32>) -> tensor<1x6xf32>
  %v1 = "mut.t_"(%arg2) {aot.no_grad} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %v2 = "tensor.cat"(%v1, %v1) {dim = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  %v3 = "tensor.minimum"(%v1, %v1) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %v4 = "tensor.log_softmax"(%v3) {dim = -2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %v5 = "view.select"(%v4) {dim = 0 : i64, index = 0 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>
  %v6 = "view.as_strided"(%v3) {size = [], stride = [], offset = 4 : i64, aot.no_grad} : (tensor<2x3xf32>) -> tensor<f32>
  return %v5 : tensor<3xf32>
}
