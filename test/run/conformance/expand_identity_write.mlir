// clamp_ through expand(shape = [-1, -1]): no element is shared (no stride-0 dim of
// size > 1), so the write is allowed and reaches the argument.
func.func @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
  %v0 = "view.expand"(%arg0) {shape = [-1, -1]} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  "mut.clamp_"(%v0) {max = 0.5 : f64} : (tensor<2x3xf32>) -> ()
  return %arg0 : tensor<2x3xf32>
}
