// golden: expect-error
// A view taken in grad mode of a tensor that does not require grad, which then gets
// a history from an in-place op: an in-place write to the view before any op used
// it raises PyTorch's leaf error (the view has no grad_fn yet).
func.func @main(%arg0: tensor<2xf32>) -> (tensor<2x3xf32>) {
  %v1 = "tensor.full"() {value = 1.85 : f64} : () -> tensor<3x2xf32>
  %v3 = "view.t"(%v1) : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %v4 = "mut.transpose_"(%v1) {dim0 = 0 : i64, dim1 = 0 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  "mut.add_"(%v4, %arg0) : (tensor<3x2xf32>, tensor<2xf32>) -> ()
  %v6 = "tensor.full"() {value = 0.28 : f64} : () -> tensor<f32>
  "mut.copy_"(%v3, %v6) : (tensor<2x3xf32>, tensor<f32>) -> ()
  return %v3 : tensor<2x3xf32>
}
