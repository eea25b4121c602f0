/// tensor.fmod takes the sign of a (C's fmod), tensor.remainder the sign
/// of b (Python's %), over every sign combination, exact multiples, -0,
/// a zero divisor (NaN), infinities and NaN; b broadcasts.
func.func @main(%a: tensor<2x6xf32>, %b: tensor<6xf32>) -> (tensor<2x6xf32>, tensor<2x6xf32>) {
  %0 = tensor.fmod %a, %b : tensor<2x6xf32>, tensor<6xf32> -> tensor<2x6xf32>
  %1 = tensor.remainder %a, %b : tensor<2x6xf32>, tensor<6xf32> -> tensor<2x6xf32>
  return %0, %1 : tensor<2x6xf32>, tensor<2x6xf32>
}
