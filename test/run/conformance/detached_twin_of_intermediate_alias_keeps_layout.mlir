// golden: expect-error
// (x.t()).detach() returned beside x.t(), where x is an intermediate: the
// detached twin has the view's own strides (tests/differential.rs; PyTorch's
// backward raises, softmax's saved result changed).
func.func @main(%arg0: tensor<2x1xf32>, %arg1: tensor<4x3xf32>) -> (tensor<1x2xf32>, tensor<1x2xf32>) {
  %v0 = "view.detach"(%arg1) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %v1 = "tensor.full"() {value = 0.95 : f64} : () -> tensor<f32>
  "mut.add_"(%v0, %v1) : (tensor<4x3xf32>, tensor<f32>) -> ()
  %v2 = "tensor.sum"(%v1) : (tensor<f32>) -> tensor<f32>
  %v3 = "tensor.full"() {value = -1.26 : f64} : () -> tensor<f32>
  "mut.add_"(%v2, %v3) : (tensor<f32>, tensor<f32>) -> ()
  %v4 = "tensor.softmax"(%arg0) {dim = 1 : i64} : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %v5 = "view.detach"(%v0) : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %v6 = "view.t"(%v4) : (tensor<2x1xf32>) -> tensor<1x2xf32>
  %v7 = "view.detach"(%v6) : (tensor<1x2xf32>) -> tensor<1x2xf32>
  %v8 = "tensor.full"() {value = -1.48 : f64} : () -> tensor<2xf32>
  "mut.add_"(%v7, %v8) {aot.no_grad} : (tensor<1x2xf32>, tensor<2xf32>) -> ()
  return %v7, %v6 : tensor<1x2xf32>, tensor<1x2xf32>
}
