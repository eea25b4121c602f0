/// test_input_mutation_multiple: three inputs, the first and last mutated
/// (by different ops), the middle one only read.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %a, %two : tensor<2x3xf32>, tensor<f32>
  mut.sub_ %c, %b : tensor<2x3xf32>
  %0 = tensor.add %a, %b : tensor<2x3xf32>
  %1 = tensor.mul %0, %c : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
