// A view of a base moved by as_strided_ under no_grad onto an element no
// argument held, written through an alias of it in grad mode: the
// argument is data-mutated (its value holds the written element), so
// its final value and its siblings' are in the gradient objective.
func.func @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2xf32>) -> (tensor<1xf32>) {
  %v1 = "mut.as_strided_"(%arg1) {size = [1], stride = [1], offset = 10 : i64, aot.no_grad} : (tensor<2xf32>) -> tensor<1xf32>
  %v2 = "view.alias"(%v1) : (tensor<1xf32>) -> tensor<1xf32>
  "mut.fill_"(%v2) {value = 0.34 : f64} : (tensor<1xf32>) -> ()
  return %v1 : tensor<1xf32>
}
