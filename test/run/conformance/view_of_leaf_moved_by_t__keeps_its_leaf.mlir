// golden: no-grad-check (PyTorch reports the leaf's gradient in the shape t_ gave it, by its new positions; the torch fuzzer maps it back by storage element)
// A view of a leaf whose metadata t_ changed, beside another leaf of the
// same storage: its gradient goes to its own leaf.
func.func @main(%arg0: tensor<2x1xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<4x3xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  %v0 = "mut.t_"(%arg2) {aot.no_grad} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %v1 = "view.select"(%v0) {dim = 0 : i64, index = 1 : i64} : (tensor<3x4xf32>) -> tensor<4xf32>
  %v2 = "tensor.cast"(%v1) : (tensor<4xf32>) -> tensor<4xf64>
  %v3 = "tensor.cast"(%v2) : (tensor<4xf64>) -> tensor<4xf32>
  return %v1, %v0 : tensor<4xf32>, tensor<3x4xf32>
}
