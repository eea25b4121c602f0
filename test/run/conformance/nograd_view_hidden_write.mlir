// A write under no_grad through a no_grad view keeps the base's gradient identity;
// the as_strided of the no_grad view read before the write carries no gradient.
func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<f32>) {
  %c = "tensor.mul"(%arg0, %arg0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %v0 = "view.select"(%c) {aot.no_grad, dim = 0 : i64, index = 1 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>
  %v1 = "view.as_strided"(%v0) {aot.no_grad, size = [2], stride = [2], offset = 3 : i64} : (tensor<3xf32>) -> tensor<2xf32>
  %e = "tensor.exp"(%v1) : (tensor<2xf32>) -> tensor<2xf32>
  %s = "tensor.sum"(%e) : (tensor<2xf32>) -> tensor<f32>
  %k = "tensor.sin"(%arg1) : (tensor<3xf32>) -> tensor<3xf32>
  "mut.mul_"(%v0, %k) {aot.no_grad} : (tensor<3xf32>, tensor<3xf32>) -> ()
  %o = "tensor.add"(%c, %arg0) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %o, %s : tensor<2x3xf32>, tensor<f32>
}
