/// tensor.cast i1 -> f32 (true = 1.0).
func.func @main(%a: tensor<4xi1>) -> tensor<4xf32> {
  %0 = tensor.cast %a : tensor<4xi1> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
