// resize_ of a detached as_strided view grows the argument's own storage, and the
// grown elements are filled; the output (an alias of the argument, mutated in the
// graph) shows them.
func.func @main(%arg0: tensor<2x2xf32>) -> (tensor<1x2xf32>) {
  %v0 = "view.permute"(%arg0) {dims = [1, 0]} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %v1 = "view.detach"(%v0) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %v3 = "view.as_strided"(%v1) {size = [], stride = [], offset = 3 : i64} : (tensor<2x2xf32>) -> tensor<f32>
  %v4 = "mut.resize_"(%v3) {size = [1, 2]} : (tensor<f32>) -> tensor<1x2xf32>
  "mut.fill_"(%v4) {value = -1.85 : f64} : (tensor<1x2xf32>) -> ()
  return %v4 : tensor<1x2xf32>
}
