/// Returning inputs themselves: x twice and a no-grad input y, plus a
/// computed value.
func.func @main(%x: tensor<2x2xf32>, %y: tensor<3xf32>) -> (tensor<2x2xf32>, tensor<3xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = tensor.exp %x : tensor<2x2xf32>
  return %x, %y, %0, %x : tensor<2x2xf32>, tensor<3xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
