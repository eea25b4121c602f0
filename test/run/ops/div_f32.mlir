/// tensor.div (true division) with denominators away from zero.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.div %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
