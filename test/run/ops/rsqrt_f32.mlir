/// tensor.rsqrt on positive values.
func.func @main(%a: tensor<5xf32>) -> tensor<5xf32> {
  %0 = tensor.rsqrt %a : tensor<5xf32>
  return %0 : tensor<5xf32>
}
