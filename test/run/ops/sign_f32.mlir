/// tensor.sign on f32: the gradient is zero.
func.func @main(%a: tensor<5xf32>) -> tensor<5xf32> {
  %0 = tensor.sign %a : tensor<5xf32>
  return %0 : tensor<5xf32>
}
