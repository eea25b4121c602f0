/// tensor.mul on i8 (small values, no overflow).
func.func @main(%a: tensor<6xi8>, %b: tensor<6xi8>) -> tensor<6xi8> {
  %0 = tensor.mul %a, %b : tensor<6xi8>
  return %0 : tensor<6xi8>
}
