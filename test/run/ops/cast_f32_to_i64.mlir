/// tensor.cast f32 -> i64 truncates toward zero; the result does not
/// require grad, so the input's gradient is zero.
func.func @main(%a: tensor<6xf32>) -> tensor<6xi64> {
  %0 = tensor.cast %a : tensor<6xf32> -> tensor<6xi64>
  return %0 : tensor<6xi64>
}
