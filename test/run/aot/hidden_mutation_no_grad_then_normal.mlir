/// The same input first mutated under aot.no_grad, then normally: the
/// mutation as a whole is not hidden (only the first step is).
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %a, %two {aot.no_grad} : tensor<3xf32>, tensor<f32>
  mut.add_ %a, %b : tensor<3xf32>
  %0 = tensor.mul %a, %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}
