// golden: expect-error
// A detached alias gets a history of its own (mul_ by a tensor that requires
// grad); reciprocal saves its result, which squeeze_ then changes in place.
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {
  %v0 = "tensor.sub"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %v1 = "view.detach"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  "mut.mul_"(%v1, %v0) : (tensor<4xf32>, tensor<4xf32>) -> ()
  %v2 = "tensor.reciprocal"(%v1) : (tensor<4xf32>) -> tensor<4xf32>
  %v3 = "mut.squeeze_"(%v2) {dim = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %v3 : tensor<4xf32>
}
