/// tensor.mul of an argument with itself (x * x): the gradient is 2x.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
