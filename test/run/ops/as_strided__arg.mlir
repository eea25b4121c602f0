/// mut.as_strided_ of a non-leaf argument to a 2x2 window with offset 2.
func.func @main(%x: tensor<8xf32>) -> tensor<2x2xf32> {
  %y = mut.as_strided_ %x {size = [2, 2], stride = [3, 1], offset = 2} : tensor<8xf32> -> tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
