/// A view taken before an in-place transpose keeps the old layout:
/// v = x.view(6); x.t_(); return v, x.select(0, 1).
func.func @main(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<2xf32>) {
  %v = view.view %x {shape = [6]} : tensor<2x3xf32> -> tensor<6xf32>
  %t = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %t {dim = 0, index = 1} : tensor<3x2xf32> -> tensor<2xf32>
  return %v, %s : tensor<6xf32>, tensor<2xf32>
}
