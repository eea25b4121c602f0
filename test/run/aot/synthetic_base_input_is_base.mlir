/// One input is the whole storage (the base itself), another a view into it
/// that is mutated: the base input sees the write.
func.func @main(%base: tensor<8xf32>, %v: tensor<2x2xf32>) -> (tensor<8xf32>, tensor<2x2xf32>) {
  %m = tensor.full {value = -3.0} : tensor<f32>
  mut.mul_ %v, %m : tensor<2x2xf32>, tensor<f32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  %0 = tensor.add %base, %one : tensor<8xf32>, tensor<f32> -> tensor<8xf32>
  return %0, %v : tensor<8xf32>, tensor<2x2xf32>
}
