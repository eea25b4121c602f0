/// tensor.where selecting between two f32 tensors; gradients flow to the
/// selected elements only.
func.func @main(%a: tensor<2x3xi1>, %b: tensor<2x3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.where %a, %b, %c : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
