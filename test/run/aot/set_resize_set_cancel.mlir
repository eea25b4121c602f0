/// Two set_ calls that cancel out: x.set_(other) then x.set_(alias of the
/// original x): x ends with its own storage and layout (not mutated), and
/// x + 1 reads the original values.
func.func @main(%x: tensor<2x2xf32>, %other: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %keep = view.alias %x : tensor<2x2xf32>
  %a = mut.set_ %x, %other {aot.no_grad} : tensor<2x2xf32>
  %b = mut.set_ %a, %keep {aot.no_grad} : tensor<2x2xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  %0 = tensor.add %b, %one : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
