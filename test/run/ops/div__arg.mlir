/// mut.div_ of a non-leaf argument.
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  mut.div_ %x, %y : tensor<4xf32>
  return %x : tensor<4xf32>
}
