/// test_input_mutation_is_output: the mutated input is also returned (an
/// `is_input` output) next to a value computed from its new contents.
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %x, %two : tensor<3xf32>, tensor<f32>
  %0 = tensor.mul %x, %y : tensor<3xf32>
  return %x, %0 : tensor<3xf32>, tensor<3xf32>
}
