/// test_input_mutation_metadata2: a.t_(); a[0].mul_(w); return a + 1. The
/// data write goes through a select of the transposed input (a column of
/// the original layout).
func.func @main(%a: tensor<3x2xf32>, %w: tensor<3xf32>) -> tensor<2x3xf32> {
  %t = mut.t_ %a : tensor<3x2xf32> -> tensor<2x3xf32>
  %r = view.select %t {dim = 0, index = 0} : tensor<2x3xf32> -> tensor<3xf32>
  mut.mul_ %r, %w : tensor<3xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  %0 = tensor.add %t, %one : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
