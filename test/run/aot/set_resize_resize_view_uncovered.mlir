/// resize_ of a strided 3x2 view to 2x3 (same number of elements) makes it
/// contiguous over storage elements 1..7, two of which (3 and 4) no
/// argument covered: they must come from the caller's storage.
func.func @main(%x: tensor<3x2xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = mut.resize_ %x {size = [2, 3]} : tensor<3x2xf32> -> tensor<2x3xf32>
  mut.add_ %r, %y : tensor<2x3xf32>, tensor<3xf32>
  %0 = tensor.mul %r, %r : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
