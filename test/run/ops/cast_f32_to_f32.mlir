/// tensor.cast to the same dtype still makes a fresh tensor (alias_of_arg null).
func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tensor.cast %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}
