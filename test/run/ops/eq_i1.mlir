/// tensor.eq of two bool tensors.
func.func @main(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %0 = tensor.eq %a, %b : tensor<4xi1>
  return %0 : tensor<4xi1>
}
