/// mut.squeeze_ without dim on a non-leaf argument.
func.func @main(%x: tensor<1x3x1xf32>) -> tensor<3xf32> {
  %y = mut.squeeze_ %x : tensor<1x3x1xf32> -> tensor<3xf32>
  return %y : tensor<3xf32>
}
