// golden: expect-error
// An unbind output written under no_grad, then used in grad mode: the view may not
// be rebased, so PyTorch raises 'Output 1 of Unbind is a view and its base ...'.
func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<2xf32>) {
  %v0 = "tensor.full"() {value = -1.76 : f64} : () -> tensor<3xf32>
  %v1 = "tensor.add"(%arg0, %v0) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %v2:2 = "view.unbind"(%v1) {dim = 0 : i64} : (tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  "mut.mul_"(%v2#1, %v2#1) {aot.no_grad} : (tensor<3xf32>, tensor<3xf32>) -> ()
  %v3 = "tensor.linear"(%v2#1, %v1) : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2xf32>
  return %v3 : tensor<2xf32>
}
