// A view of a base moved by as_strided_ under no_grad onto elements its
// sibling zeroed: its gradient (as an output and as an argument whose root
// changed) goes through the sibling's new value, the zero_, not to the
// sibling's entry value.
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<2x1xf32>) {
  "mut.zero_"(%arg0) : (tensor<4xf32>) -> ()
  %v4 = "mut.as_strided_"(%arg1) {size = [2, 1], stride = [1, 0], offset = 2 : i64, aot.no_grad} : (tensor<4xf32>) -> tensor<2x1xf32>
  return %v4 : tensor<2x1xf32>
}
