/// An output that is a view of an input taken after an in-place view op:
/// a.t_(); return a.select(1, 1) (offset 3, stride 1 in the original
/// storage) and a.diagonal().
func.func @main(%a: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %t = mut.t_ %a : tensor<3x3xf32> -> tensor<3x3xf32>
  %s = view.select %t {dim = 1, index = 1} : tensor<3x3xf32> -> tensor<3xf32>
  %d = view.diagonal %t {offset = 0} : tensor<3x3xf32> -> tensor<3xf32>
  return %s, %d : tensor<3xf32>, tensor<3xf32>
}
