// golden: expect-error
// An in-place write in grad mode through a view of a view made under no_grad:
// PyTorch's 'Output 0 of Unsqueeze is a view of a view which was created in no_grad mode'.
func.func @main(%arg0: tensor<3x2xf32>) -> (tensor<1x2x1xf32>) {
  %v0 = "view.reshape"(%arg0) {shape = [3, 2, 1], aot.no_grad} : (tensor<3x2xf32>) -> tensor<3x2x1xf32>
  %v1 = "view.unsqueeze"(%v0) {dim = 1 : i64} : (tensor<3x2x1xf32>) -> tensor<3x1x2x1xf32>
  %v2 = "tensor.full"() {value = -0.76 : f64} : () -> tensor<1x2x1xf32>
  "mut.div_"(%v1, %v2) : (tensor<3x1x2x1xf32>, tensor<1x2x1xf32>) -> ()
  return %v2 : tensor<1x2x1xf32>
}
