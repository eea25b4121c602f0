/// tensor.cast i64 -> f32.
func.func @main(%a: tensor<5xi64>) -> tensor<5xf32> {
  %0 = tensor.cast %a : tensor<5xi64> -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
