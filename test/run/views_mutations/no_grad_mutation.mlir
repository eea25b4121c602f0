/// with no_grad: a.mul_(2); return a + 3 on a non-leaf argument: the
/// gradient is 1, not 2 (the mutation is invisible to autograd).
func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %a, %two {aot.no_grad} : tensor<3xf32>, tensor<f32>
  %three = tensor.full {value = 3.0} : tensor<f32>
  %0 = tensor.add %a, %three : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
