/// test_input_mutation_noncontiguous: the argument is a non-contiguous view
/// (row stride 4, offset 1) of a differentiable base; x.mul_(2) must write
/// through its strides into the caller's storage.
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %x, %two : tensor<2x2xf32>, tensor<f32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  %0 = tensor.add %x, %one : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
