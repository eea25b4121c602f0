/// view.view with a -1 entry (inferred).
func.func @main(%a: tensor<2x3x2xf32>) -> tensor<4x3xf32> {
  %0 = view.view %a {shape = [-1, 3]} : tensor<2x3x2xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
