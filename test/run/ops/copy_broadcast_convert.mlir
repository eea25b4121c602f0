/// mut.copy_ broadcasting a row and converting i64 -> f32 into a fresh
/// tensor; the argument itself does not require grad.
func.func @main(%dst: tensor<3x2xf32>, %src: tensor<2xi64>) -> tensor<3x2xf32> {
  mut.copy_ %dst, %src : tensor<3x2xf32>, tensor<2xi64>
  return %dst : tensor<3x2xf32>
}
