/// index_put_ through a transposed view of an argument (writes columns).
func.func @main(%x: tensor<2x3xf32>, %i: tensor<2xi64>, %v: tensor<2xf32>) -> tensor<2x3xf32> {
  %t = view.t %x : tensor<2x3xf32> -> tensor<3x2xf32>
  mut.index_put_ %t, %i, %v : tensor<3x2xf32>, tensor<2xi64>, tensor<2xf32>
  return %x : tensor<2x3xf32>
}
