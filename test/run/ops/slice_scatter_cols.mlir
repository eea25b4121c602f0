/// view.slice_scatter of columns 1..3: a fresh copy of base with the
/// slice replaced; gradients for base (zero in the slice) and src.
func.func @main(%a: tensor<3x4xf32>, %b: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %0 = view.slice_scatter %a, %b {dim = 1, start = 1, end = 3} : tensor<3x4xf32>, tensor<3x2xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
