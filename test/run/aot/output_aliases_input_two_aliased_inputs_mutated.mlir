/// Two overlapping views of one differentiable base with different shapes
/// (a: 4 at offset 1; b: 2x3 at offset 2); a is mutated (synthetic base).
/// Outputs are views of each with non-zero offsets: a slice of a, a column
/// of b, and b transposed; each must come from the right input.
func.func @main(%a: tensor<4xf32>, %b: tensor<2x3xf32>, %w: tensor<4xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<3x2xf32>) {
  mut.mul_ %a, %w : tensor<4xf32>
  %s = view.slice %a {dim = 0, start = 1} : tensor<4xf32> -> tensor<3xf32>
  %c = view.select %b {dim = 1, index = 2} : tensor<2x3xf32> -> tensor<2xf32>
  %t = view.t %b : tensor<2x3xf32> -> tensor<3x2xf32>
  return %s, %c, %t : tensor<3xf32>, tensor<2xf32>, tensor<3x2xf32>
}
