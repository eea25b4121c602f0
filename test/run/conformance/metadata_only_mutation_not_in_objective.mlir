// An argument changed only by unsqueeze_ is not in the gradient objective:
// its gradient is zero, not one.
func.func @main(%arg0: tensor<2xf32>) -> (tensor<f32>) {
  %v0 = "mut.unsqueeze_"(%arg0) {dim = 0 : i64} : (tensor<2xf32>) -> tensor<1x2xf32>
  %v1 = "tensor.full"() {value = 1.0 : f64} : () -> tensor<f32>
  return %v1 : tensor<f32>
}
