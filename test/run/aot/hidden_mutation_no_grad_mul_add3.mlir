/// with no_grad: a.mul_(2); return a + 3, on a 2x2 non-leaf that requires
/// grad; a is also returned. The mutation is hidden from autograd (gradient
/// 1, not 2) but the caller sees a doubled.
func.func @main(%a: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %a, %two {aot.no_grad} : tensor<2x2xf32>, tensor<f32>
  %three = tensor.full {value = 3.0} : tensor<f32>
  %0 = tensor.add %a, %three : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %0, %a : tensor<2x2xf32>, tensor<2x2xf32>
}
