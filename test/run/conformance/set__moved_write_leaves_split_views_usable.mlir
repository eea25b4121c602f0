// y.set_(x) (under no_grad) makes y share x's storage but not x's version counter (PyTorch
// keeps one per view family, and set_ joins none). A write through y under
// no_grad therefore leaves x's split outputs usable in grad mode: PyTorch's
// "Output 1 of SplitWithSizes is a view and its base or another view of its
// base has been modified inplace" does not fire (the interpreter once kept
// the counter per storage and raised it).
func.func @main(%arg0: tensor<3x2xf32>, %arg1: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %v0 = "mut.set_"(%arg1, %arg0) {aot.no_grad} : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %v3:2 = "view.split"(%arg0) {dim = 1 : i64, sizes = [1, 1]} : (tensor<3x2xf32>) -> (tensor<3x1xf32>, tensor<3x1xf32>)
  %two = "tensor.full"() {value = 2.0 : f64} : () -> tensor<f32>
  "mut.div_"(%v0, %two) {aot.no_grad} : (tensor<3x2xf32>, tensor<f32>) -> ()
  %v4 = "tensor.cat"(%v3#1, %v3#0) {dim = 1 : i64} : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
  %v5 = "tensor.mul"(%v4, %v4) : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %v5, %v0 : tensor<3x2xf32>, tensor<3x2xf32>
}
