/// tensor.where with all three operands broadcasting: cond 2x1, a 1x3, b 0-d.
func.func @main(%a: tensor<2x1xi1>, %b: tensor<1x3xf32>, %c: tensor<f32>) -> tensor<2x3xf32> {
  %0 = tensor.where %a, %b, %c : tensor<2x1xi1>, tensor<1x3xf32>, tensor<f32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
