// A leaf with a stride-0 layout (two rows, one memory row), passed twice, returned
// transposed: its gradient is per logical element, routed through the output's
// view recipe rather than by memory location.
func.func @main(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf32>) -> (tensor<4x2xf32>) {
  %v1 = "view.transpose"(%arg1) {dim0 = 0 : i64, dim1 = 1 : i64} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %v3 = "view.alias"(%v1) : (tensor<4x2xf32>) -> tensor<4x2xf32>
  return %v3 : tensor<4x2xf32>
}
