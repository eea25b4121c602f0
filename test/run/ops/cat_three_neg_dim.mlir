/// tensor.cat of three tensors along dim -1; the middle one does not require grad.
func.func @main(%a: tensor<2x1xf32>, %b: tensor<2x2xf32>, %c: tensor<2x3xf32>) -> tensor<2x6xf32> {
  %0 = tensor.cat %a, %b, %c {dim = -1} : tensor<2x1xf32>, tensor<2x2xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}
