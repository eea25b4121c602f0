// resize_ of a view grows the argument's storage; the output (an alias of the
// argument) is filled afterwards: its grown elements come from the graph.
func.func @main(%arg0: tensor<4x2xf32>) -> (tensor<4x3xf32>) {
  %v0 = "view.split"(%arg0) {dim = 1 : i64, sizes = [2]} : (tensor<4x2xf32>) -> tensor<4x2xf32>
  %v2 = "mut.resize_"(%v0) {size = [4, 3]} : (tensor<4x2xf32>) -> tensor<4x3xf32>
  "mut.fill_"(%v2) {value = 0.85 : f64} : (tensor<4x3xf32>) -> ()
  return %v2 : tensor<4x3xf32>
}
