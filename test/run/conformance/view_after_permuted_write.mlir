// exp_ through a permute, then view(arg, [36]): after functionalize the view
// reads a value whose layout is the backend's choice, so native code copies
// where the strides cannot express the view (eager keeps PyTorch's layout).
func.func @main(%arg0: tensor<4x3x3xf32>) -> (tensor<1xf32>) {
  %v0 = "view.permute"(%arg0) {dims = [-2, 0, 2]} : (tensor<4x3x3xf32>) -> tensor<3x4x3xf32>
  "mut.exp_"(%v0) : (tensor<3x4x3xf32>) -> ()
  %v1 = "view.view"(%arg0) {shape = [36]} : (tensor<4x3x3xf32>) -> tensor<36xf32>
  %v2:3 = "tensor.layer_norm"(%v1, %v1, %v1) {normalized_ndim = 1 : i64, eps = 1e-05 : f64} : (tensor<36xf32>, tensor<36xf32>, tensor<36xf32>) -> (tensor<36xf32>, tensor<1xf32>, tensor<1xf32>)
  return %v2#2 : tensor<1xf32>
}
