/// view.slice of columns 1..3 of a matrix.
func.func @main(%a: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %0 = view.slice %a {dim = 1, start = 1, end = 3} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
