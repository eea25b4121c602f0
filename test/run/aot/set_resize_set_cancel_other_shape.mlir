/// PyTorch's test_input_mutation_set__nop: under no_grad, a leaf that
/// requires grad is set_ onto data of another shape and back onto its own
/// (through an alias taken before): the pair is a no-op, so the gradient is
/// the leaf's own and nothing is refused.
func.func @main(%a: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %b = tensor.full {value = 2.0} : tensor<9xf32>
  %old = view.alias %a : tensor<3x3xf32> -> tensor<3x3xf32>
  %a1 = mut.set_ %a, %b {aot.no_grad} : tensor<3x3xf32>, tensor<9xf32> -> tensor<9xf32>
  %a2 = mut.set_ %a1, %old {aot.no_grad} : tensor<9xf32>, tensor<3x3xf32> -> tensor<3x3xf32>
  %br = view.reshape %b {shape = array<i64: 3, 3>} : tensor<9xf32> -> tensor<3x3xf32>
  %r = tensor.add %a2, %br : tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}
