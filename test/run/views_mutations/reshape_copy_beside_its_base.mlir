/// A reshape of a permuted view copies (PyTorch's reshape): returned beside
/// its base (after no-op metadata mutations), it is not a view of the base's
/// storage in the base's element order. PyTorch fuzzer, seed 32464.
func.func @main(%arg0: tensor<3x2xf32>) -> (tensor<6xf32>, tensor<3x2xf32>) {
  %v0 = "tensor.log_softmax"(%arg0) {dim = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %v1 = "mut.transpose_"(%v0) {dim0 = 0 : i64, dim1 = -2 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %v5 = "mut.squeeze_"(%v1) {dim = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %v6 = "view.permute"(%v5) {dims = [1, 0]} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %v7 = "view.reshape"(%v6) {shape = [6]} : (tensor<2x3xf32>) -> tensor<6xf32>
  return %v7, %v5 : tensor<6xf32>, tensor<3x2xf32>
}
