/// resize_ of a 3x2 input to 2x3 (same number of elements): a pure
/// metadata change over the old storage, then a data write through it.
func.func @main(%x: tensor<3x2xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = mut.resize_ %x {size = [2, 3]} : tensor<3x2xf32> -> tensor<2x3xf32>
  mut.add_ %r, %y : tensor<2x3xf32>, tensor<3xf32>
  %0 = tensor.mul %r, %r : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
