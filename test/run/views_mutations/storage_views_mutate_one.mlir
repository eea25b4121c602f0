/// Two args are overlapping views of one storage (no grad): writing
/// arg 0 changes what arg 1 sees; arg 1 is returned (alias_of_arg 0, the lowest).
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %ten = tensor.full {value = 10.0} : tensor<f32>
  mut.add_ %a, %ten : tensor<4xf32>, tensor<f32>
  return %b : tensor<4xf32>
}
