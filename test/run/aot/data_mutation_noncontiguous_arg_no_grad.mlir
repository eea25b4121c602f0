/// A transposed-layout argument (strides [1, 3], offset 2) that does not
/// require grad, mutated by add_: the values land at the strided positions.
func.func @main(%x: tensor<3x2xf32>, %y: tensor<2xf32>) -> tensor<3x2xf32> {
  mut.add_ %x, %y : tensor<3x2xf32>, tensor<2xf32>
  %0 = tensor.mul %x, %x : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
