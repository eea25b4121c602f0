/// Two overlapping views of one differentiable base (requires grad), one
/// mutated with a value that requires grad: the base carries both.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<3xf32>, %w: tensor<2x2xf32>) -> (tensor<3xf32>, tensor<2x2xf32>) {
  mut.mul_ %a, %w : tensor<2x2xf32>
  %0 = tensor.exp %b : tensor<3xf32>
  %1 = tensor.add %a, %w : tensor<2x2xf32>
  return %0, %1 : tensor<3xf32>, tensor<2x2xf32>
}
