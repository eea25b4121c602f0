/// mut.sigmoid_ through a slice view of a non-leaf argument.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = view.slice %x {dim = 0, start = 1, end = 3} : tensor<4xf32> -> tensor<2xf32>
  mut.sigmoid_ %s : tensor<2xf32>
  return %x : tensor<4xf32>
}
