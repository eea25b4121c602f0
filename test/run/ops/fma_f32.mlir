/// tensor.fma: a·b + c rounded once (several elements differ from a product
/// then a sum, each rounded); gradients through the broadcast row and 0-d scale.
func.func @main(%a: tensor<3x4xf32>, %b: tensor<4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = tensor.fma %a, %b, %c : tensor<3x4xf32>, tensor<4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
