// golden: expect-error
// erf of one duplicate saves it; an in-place metadata op on a view of the other
// duplicate (the same tensor) moves its version counter: backward raises.
func.func @main(%arg0: tensor<3x2xf32>, %arg1: tensor<3x2xf32>) -> (tensor<3x2xf32>) {
  %v0 = "tensor.erf"(%arg1) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %v4 = "view.select"(%arg0) {dim = 0 : i64, index = 2 : i64} : (tensor<3x2xf32>) -> tensor<2xf32>
  %v6 = "mut.transpose_"(%v4) {dim0 = -1 : i64, dim1 = -1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %v7 = "view.squeeze"(%v0) {dim = 0 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  return %v7 : tensor<3x2xf32>
}
