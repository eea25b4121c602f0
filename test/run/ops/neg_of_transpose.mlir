/// A pure op on a transposed view gives a fresh *contiguous* result (the
/// contract), where PyTorch's TensorIterator would keep the transposed layout.
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = view.t %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = tensor.neg %t : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
