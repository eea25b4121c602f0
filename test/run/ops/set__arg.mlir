/// mut.set_ of a non-grad argument onto another argument: afterwards both
/// share one storage (alias_of_arg 0 for the returned value).
func.func @main(%x: tensor<3xf32>, %src: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = mut.set_ %x, %src : tensor<3xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
