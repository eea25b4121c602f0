/// x[:, 1:3].add_(y) writes into the argument; the result is the slice view.
func.func @main(%x: tensor<3x4xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %s = view.slice %x {dim = 1, start = 1, end = 3} : tensor<3x4xf32> -> tensor<3x2xf32>
  mut.add_ %s, %y : tensor<3x2xf32>
  return %s : tensor<3x2xf32>
}
