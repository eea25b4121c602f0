/// tensor.clone of a transposed view has contiguous strides.
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = tensor.clone %t : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
