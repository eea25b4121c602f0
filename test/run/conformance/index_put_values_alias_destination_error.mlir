// golden: expect-error
// index_put_ whose values are the destination itself: PyTorch's index_put_ checks
// values with assert_no_overlap, so even a full overlap is an error.
func.func @main() -> (tensor<1xf32>) {
  %v0 = "tensor.full"() {value = 0.19 : f64} : () -> tensor<1x2xf32>
  %v1 = "view.squeeze"(%v0) {dim = 0 : i64} : (tensor<1x2xf32>) -> tensor<2xf32>
  %v2 = "view.select"(%v1) {dim = 0 : i64, index = -2 : i64} : (tensor<2xf32>) -> tensor<f32>
  %v3 = "view.view"(%v2) {shape = [1]} : (tensor<f32>) -> tensor<1xf32>
  %v4 = "tensor.constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  "mut.index_put_"(%v3, %v4, %v3) : (tensor<1xf32>, tensor<1xi64>, tensor<1xf32>) -> ()
  return %v3 : tensor<1xf32>
}
