/// tensor.clone of a bool tensor.
func.func @main(%a: tensor<4xi1>) -> tensor<4xi1> {
  %0 = tensor.clone %a : tensor<4xi1>
  return %0 : tensor<4xi1>
}
