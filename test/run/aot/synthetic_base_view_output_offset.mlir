/// pytorch issue 198095: an output that views an aliased input at a
/// non-zero offset must be regenerated relative to the real base, from the
/// right input (a starts at element 2, its slice at element 3).
func.func @main(%a: tensor<6xf32>, %b: tensor<6xf32>) -> (tensor<2xf32>, tensor<2x2xf32>) {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %b, %two : tensor<6xf32>, tensor<f32>
  %s = view.slice %a {dim = 0, start = 1, end = 3} : tensor<6xf32> -> tensor<2xf32>
  %v = view.view %b {shape = [3, 2]} : tensor<6xf32> -> tensor<3x2xf32>
  %w = view.slice %v {dim = 0, start = 1} : tensor<3x2xf32> -> tensor<2x2xf32>
  return %s, %w : tensor<2xf32>, tensor<2x2xf32>
}
