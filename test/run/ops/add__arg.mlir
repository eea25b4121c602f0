/// mut.add_ into a non-leaf argument with broadcasting; returns nothing.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) {
  mut.add_ %x, %y : tensor<2x3xf32>, tensor<3xf32>
  return
}
