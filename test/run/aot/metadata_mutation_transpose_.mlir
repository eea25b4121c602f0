/// test_input_mutation_metadata: a.transpose_(1, 0); return a + 1. The
/// caller's tensor must end up 3x2 with strides [1, 3].
func.func @main(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = mut.transpose_ %a {dim0 = 1, dim1 = 0} : tensor<2x3xf32> -> tensor<3x2xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  %0 = tensor.add %t, %one : tensor<3x2xf32>, tensor<f32> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
