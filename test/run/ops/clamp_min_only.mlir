/// tensor.clamp with only a lower bound (written as f32).
func.func @main(%a: tensor<6xf32>) -> tensor<6xf32> {
  %0 = tensor.clamp %a {min = 0.25 : f32} : tensor<6xf32>
  return %0 : tensor<6xf32>
}
