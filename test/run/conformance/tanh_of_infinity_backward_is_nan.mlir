// golden: no-fd (division by zero gives infinities)
// tanh(-inf) is exactly -1 in native code as in PyTorch, so its backward
// multiplies 1 - tanh² = 0 by an infinite factor: NaN, not inf.
func.func @main(%arg0: tensor<4x2xf32>) -> (tensor<2xf32>) {
  "mut.zero_"(%arg0) {aot.no_grad} : (tensor<4x2xf32>) -> ()
  %v0 = "tensor.full"() {value = -1.7 : f64} : () -> tensor<2xf32>
  %v1 = "tensor.div"(%v0, %arg0) : (tensor<2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %v2 = "tensor.gt"(%v1, %v0) : (tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xi1>
  %v3 = "tensor.full"() {value = -0.03 : f64} : () -> tensor<f32>
  %v4 = "tensor.where"(%v2, %v3, %v1) : (tensor<4x2xi1>, tensor<f32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %v5 = "view.select"(%v4) {dim = 0 : i64, index = 3 : i64} : (tensor<4x2xf32>) -> tensor<2xf32>
  "mut.tanh_"(%v5) : (tensor<2xf32>) -> ()
  return %v5 : tensor<2xf32>
}
