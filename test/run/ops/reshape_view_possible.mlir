/// view.reshape of a contiguous tensor is a view (alias_of_arg 0).
func.func @main(%a: tensor<4x3xf32>) -> tensor<2x2x3xf32> {
  %0 = view.reshape %a {shape = [2, 2, 3]} : tensor<4x3xf32> -> tensor<2x2x3xf32>
  return %0 : tensor<2x2x3xf32>
}
