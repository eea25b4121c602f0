/// The seed example (test_input_mutation_simple): x.mul_(2); return x + y.
/// x is a non-leaf that requires grad, so autograd sees the mutation; the
/// caller must see x doubled afterwards.
func.func @main(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %x, %two : tensor<2x2xf32>, tensor<f32>
  %0 = tensor.add %x, %y : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
