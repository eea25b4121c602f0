/// tensor.constant (nested dense literal) added to an argument.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c = tensor.constant dense<[[1.0, -2.5, 0.5], [1.0e-1, 3.0, -1.0e+1]]> : tensor<2x3xf32>
  %0 = tensor.mul %x, %c : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
