// golden: expect-error
// set_ in grad mode of a detached tensor gives it set_'s history, which a
// view taken before (through the detach) reaches: PyTorch's backward raises.
func.func @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2x3x2xf32>) -> (tensor<2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>) {
  %v0 = "view.detach"(%arg2) : (tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %v1 = "tensor.cast"(%arg1) : (tensor<2xf32>) -> tensor<2xf64>
  %v2 = "tensor.cast"(%v1) : (tensor<2xf64>) -> tensor<2xf32>
  "mut.relu_"(%arg0) : (tensor<4x2xf32>) -> ()
  "mut.exp_"(%arg0) : (tensor<4x2xf32>) -> ()
  %v3 = "view.detach"(%v2) : (tensor<2xf32>) -> tensor<2xf32>
  %v4 = "view.transpose"(%v3) {dim0 = 0 : i64, dim1 = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %v5 = "mut.set_"(%v3, %arg2) : (tensor<2xf32>, tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  return %v4, %v0, %arg2 : tensor<2xf32>, tensor<2x3x2xf32>, tensor<2x3x2xf32>
}
