/// mut.fill_ of a non-leaf argument: its gradient through the objective is zero.
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  mut.fill_ %x {value = 2.5} : tensor<2x2xf32>
  return %x : tensor<2x2xf32>
}
