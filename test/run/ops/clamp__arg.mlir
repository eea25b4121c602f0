/// mut.clamp_ with both bounds on a non-leaf argument.
func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> {
  mut.clamp_ %x {min = -0.5, max = 0.75} : tensor<6xf32>
  return %x : tensor<6xf32>
}
