/// mut.neg_ on a non-leaf argument, returned.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  mut.neg_ %x : tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}
