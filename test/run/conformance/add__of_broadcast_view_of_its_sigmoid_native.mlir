// x.add_(sigmoid(x)[1]) then zero_ of that element: the broadcast read of x's
// sigmoid must see x from before the write (native code must not recompute it
// inside the loop that writes x).
func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
  %v0 = "tensor.sigmoid"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  %v2 = "view.select"(%v0) {dim = -1 : i64, index = -2 : i64} : (tensor<3xf32>) -> tensor<f32>
  "mut.add_"(%arg0, %v2) : (tensor<3xf32>, tensor<f32>) -> ()
  "mut.zero_"(%v2) : (tensor<f32>) -> ()
  return %v0 : tensor<3xf32>
}
