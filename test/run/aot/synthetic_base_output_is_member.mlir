/// An aliased, mutated input returned as is: after the synthetic base
/// rewrite it is an alias of the base (is_input becomes alias_of_input).
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>, %w: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  mut.add_ %b, %w : tensor<3xf32>
  return %b, %a : tensor<3xf32>, tensor<3xf32>
}
