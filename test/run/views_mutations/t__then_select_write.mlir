/// x.t_() then a write through a select of the transposed object, reading
/// both back: x (now 3x2) and the row view.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>) {
  %xt = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %r = view.select %xt {dim = 0, index = 1} : tensor<3x2xf32> -> tensor<2xf32>
  mut.mul_ %r, %y : tensor<2xf32>
  return %xt, %r : tensor<3x2xf32>, tensor<2xf32>
}
