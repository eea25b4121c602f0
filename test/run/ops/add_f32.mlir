/// tensor.add of two f32 tensors of the same shape; both require grad.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
