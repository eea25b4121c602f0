// golden: expect-error
// set_ moves y, but y keeps its version counter: a later in-place op on y
// invalidates a no_grad view taken of y before the move.
func.func @main(%arg0: tensor<3x3xf32>, %arg1: tensor<1x4x3xf32>) -> (tensor<2x3xf32>) {
  %v0 = "view.reshape"(%arg1) {shape = [-1, 2], aot.no_grad} : (tensor<1x4x3xf32>) -> tensor<6x2xf32>
  %v1 = "view.detach"(%arg0) : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %v5:3 = "tensor.layer_norm"(%v1) {normalized_ndim = 1 : i64, eps = 1.0e-05 : f64} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x1xf32>, tensor<3x1xf32>)
  %v6 = "view.permute"(%v5#0) {dims = [0, 1]} : (tensor<3x3xf32>) -> tensor<3x3xf32>
  "mut.add_"(%v6, %arg0) : (tensor<3x3xf32>, tensor<3x3xf32>) -> ()
  "mut.fill_"(%v5#0) {value = -1.36 : f64} : (tensor<3x3xf32>) -> ()
  "mut.tanh_"(%v5#0) : (tensor<3x3xf32>) -> ()
  %v7 = "mut.set_"(%v5#0, %arg0) : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %v8 = "view.slice"(%v6) {dim = 0 : i64, start = 0 : i64, end = -1 : i64, step = 1 : i64, aot.no_grad} : (tensor<3x3xf32>) -> tensor<2x3xf32>
  %v9 = "tensor.full"() {value = -1.84 : f64} : () -> tensor<f32>
  "mut.add_"(%v7, %v9) : (tensor<3x3xf32>, tensor<f32>) -> ()
  return %v8 : tensor<2x3xf32>
}
