/// view.slice with step 2 along dim 0.
func.func @main(%a: tensor<5x2xf32>) -> tensor<3x2xf32> {
  %0 = view.slice %a {dim = 0, start = 0, end = 5, step = 2} : tensor<5x2xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
