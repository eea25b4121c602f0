// golden: expect-error
// as_strided_ of a detached tensor that an in-place op made require grad:
// inference answers; the backward raises PyTorch's error.
func.func @main(%arg0: tensor<2x2x4xf32>) -> (tensor<1xf32>, tensor<3xf32>, tensor<1xf32>) {
  %v0 = "view.reshape"(%arg0) {shape = [4, 4]} : (tensor<2x2x4xf32>) -> tensor<4x4xf32>
  "mut.exp_"(%v0) : (tensor<4x4xf32>) -> ()
  %v1 = "view.detach"(%arg0) : (tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  "mut.mul_"(%v1, %arg0) : (tensor<2x2x4xf32>, tensor<2x2x4xf32>) -> ()
  %v2 = "mut.as_strided_"(%v1) {size = [1], stride = [2], offset = 5 : i64, aot.no_grad} : (tensor<2x2x4xf32>) -> tensor<1xf32>
  %v3 = "view.detach"(%v2) : (tensor<1xf32>) -> tensor<1xf32>
  %v4 = "tensor.clone"(%v3) : (tensor<1xf32>) -> tensor<1xf32>
  %v5 = "tensor.cat"(%v2, %v4, %v2) {dim = 0 : i64} : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3xf32>
  %v6 = "mut.t_"(%v3) : (tensor<1xf32>) -> tensor<1xf32>
  %v7 = "view.permute"(%v5) {dims = [0]} : (tensor<3xf32>) -> tensor<3xf32>
  return %v6, %v5, %v4 : tensor<1xf32>, tensor<3xf32>, tensor<1xf32>
}
