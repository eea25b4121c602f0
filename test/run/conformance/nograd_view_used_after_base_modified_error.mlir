// golden: expect-error
// A view made under no_grad is used in grad mode after its base's metadata was
// changed in place (unsqueeze_ bumps the shared version counter): PyTorch raises.
func.func @main(%arg0: tensor<1x2xf32>) -> (tensor<2x2xf32>) {
  %v0 = "mut.squeeze_"(%arg0) {dim = 0 : i64} : (tensor<1x2xf32>) -> tensor<2xf32>
  %v1 = "view.expand"(%v0) {shape = [-1], aot.no_grad} : (tensor<2xf32>) -> tensor<2xf32>
  %v2 = "mut.unsqueeze_"(%v0) {dim = -1 : i64} : (tensor<2xf32>) -> tensor<2x1xf32>
  %v3 = "tensor.abs"(%v2) : (tensor<2x1xf32>) -> tensor<2x1xf32>
  %v4 = "tensor.full"() {value = 0.5 : f64} : () -> tensor<f32>
  %v5 = "tensor.add"(%v3, %v4) : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %v6 = "tensor.div"(%v1, %v5) : (tensor<2xf32>, tensor<2x1xf32>) -> tensor<2x2xf32>
  return %v6 : tensor<2x2xf32>
}
