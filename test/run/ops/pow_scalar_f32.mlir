/// tensor.pow_scalar on f32 for PyTorch's special exponents (x·x·x, a
/// root, a reciprocal square) and a general one: its values and
/// g·(k·x**(k - 1)) with the same special cases.
func.func @main(%a: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %0 = tensor.pow_scalar %a {exponent = 3.0} : tensor<6xf32>
  %1 = tensor.pow_scalar %a {exponent = 0.5} : tensor<6xf32>
  %2 = tensor.pow_scalar %a {exponent = -2.0} : tensor<6xf32>
  %3 = tensor.pow_scalar %a {exponent = 2.5} : tensor<6xf32>
  return %0, %1, %2, %3 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}
