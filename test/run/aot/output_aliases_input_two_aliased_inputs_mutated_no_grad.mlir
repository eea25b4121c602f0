/// As two_aliased_inputs_mutated but nothing requires grad: b (a transposed
/// 2x2 view at offset 2) is mutated, the outputs view a and b.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<2x2xf32>) {
  %ten = tensor.full {value = 10.0} : tensor<f32>
  mut.add_ %b, %ten : tensor<2x2xf32>, tensor<f32>
  %r = view.select %a {dim = 0, index = 1} : tensor<2x3xf32> -> tensor<3xf32>
  %d = view.diagonal %b : tensor<2x2xf32> -> tensor<2xf32>
  %v = view.view %b {shape = [2, 2]} : tensor<2x2xf32> -> tensor<2x2xf32>
  return %r, %d, %v : tensor<3xf32>, tensor<2xf32>, tensor<2x2xf32>
}
