/// mut.mul_ on an i32 argument (no grad) with a broadcast column.
func.func @main(%x: tensor<2x3xi32>, %y: tensor<2x1xi32>) {
  mut.mul_ %x, %y : tensor<2x3xi32>, tensor<2x1xi32>
  return
}
