/// tensor.sign on i8, including zero.
func.func @main(%a: tensor<6xi8>) -> tensor<6xi8> {
  %0 = tensor.sign %a : tensor<6xi8>
  return %0 : tensor<6xi8>
}
