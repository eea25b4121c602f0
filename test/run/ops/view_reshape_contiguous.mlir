/// view.view of a contiguous tensor: the output aliases the argument.
func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = view.view %a {shape = [3, 2]} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
