/// Two inputs viewing one listed storage with different shapes (a: 2x3 at
/// offset 0, b: 3x2 transposed at offset 3, overlapping a's second row);
/// each output is a view of one of them and must keep that input's layout.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<1x3xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %s = view.slice %a {dim = 0, start = 1} : tensor<2x3xf32> -> tensor<1x3xf32>
  %c = view.select %b {dim = 1, index = 1} : tensor<3x2xf32> -> tensor<3xf32>
  %t = view.t %b : tensor<3x2xf32> -> tensor<2x3xf32>
  return %s, %c, %t : tensor<1x3xf32>, tensor<3xf32>, tensor<2x3xf32>
}
