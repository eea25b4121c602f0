/// mut.unsqueeze_ of a non-leaf argument at dim 1.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x1x3xf32> {
  %y = mut.unsqueeze_ %x {dim = 1} : tensor<2x3xf32> -> tensor<2x1x3xf32>
  return %y : tensor<2x1x3xf32>
}
