/// mut.t_ on a temporary then arithmetic on it.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %t = tensor.clone %x : tensor<2x3xf32>
  %tt = mut.t_ %t : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = tensor.mul %tt, %y : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
