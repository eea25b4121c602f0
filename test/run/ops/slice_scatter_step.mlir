/// view.slice_scatter with step 2 along dim 0 and the default end.
func.func @main(%a: tensor<5x2xf32>, %b: tensor<3x2xf32>) -> tensor<5x2xf32> {
  %0 = view.slice_scatter %a, %b {dim = 0, step = 2} : tensor<5x2xf32>, tensor<3x2xf32> -> tensor<5x2xf32>
  return %0 : tensor<5x2xf32>
}
