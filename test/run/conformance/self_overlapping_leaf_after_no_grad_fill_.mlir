// A self-overlapping leaf filled under no_grad and then read: its gradient
// stays per position, as PyTorch's leaf gradient is.
func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2x1x2xf32>) {
  %v0 = "view.reshape"(%arg1) {shape = [6], aot.no_grad} : (tensor<3x2xf32>) -> tensor<6xf32>
  "mut.fill_"(%arg1) {value = -1.28 : f64, aot.no_grad} : (tensor<3x2xf32>) -> ()
  %v1 = "view.diagonal"(%arg1) {offset = 0 : i64, dim1 = -2 : i64, dim2 = 1 : i64, aot.no_grad} : (tensor<3x2xf32>) -> tensor<2xf32>
  %v2 = "tensor.softmax"(%v0) {dim = 0 : i64} : (tensor<6xf32>) -> tensor<6xf32>
  %v3 = "tensor.log_softmax"(%arg1) {dim = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %v4 = "view.unsqueeze"(%v3) {dim = -2 : i64} : (tensor<3x2xf32>) -> tensor<3x1x2xf32>
  %v5 = "view.slice"(%v4) {dim = 0 : i64, start = -3 : i64, end = -1 : i64, step = 1 : i64} : (tensor<3x1x2xf32>) -> tensor<2x1x2xf32>
  %v6 = "view.squeeze"(%v4) {dim = 1 : i64} : (tensor<3x1x2xf32>) -> tensor<3x2xf32>
  return %v6, %v5 : tensor<3x2xf32>, tensor<2x1x2xf32>
}
