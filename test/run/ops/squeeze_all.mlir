/// view.squeeze without dim removes every size-1 dim.
func.func @main(%a: tensor<1x3x1x2xf32>) -> tensor<3x2xf32> {
  %0 = view.squeeze %a : tensor<1x3x1x2xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
