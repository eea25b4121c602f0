/// mut.sub_ on a non-leaf argument, returned afterwards.
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  mut.sub_ %x, %y : tensor<3xf32>
  return %x : tensor<3xf32>
}
