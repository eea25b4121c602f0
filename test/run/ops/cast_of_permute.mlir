/// tensor.cast of a permuted view: a fresh contiguous result.
func.func @main(%x: tensor<2x3x2xf32>) -> tensor<2x2x3xf64> {
  %p = view.permute %x {dims = [0, 2, 1]} : tensor<2x3x2xf32> -> tensor<2x2x3xf32>
  %0 = tensor.cast %p : tensor<2x2x3xf32> -> tensor<2x2x3xf64>
  return %0 : tensor<2x2x3xf64>
}
