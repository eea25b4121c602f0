/// tensor.le on i8 against a 0-d i8.
func.func @main(%a: tensor<4xi8>, %b: tensor<i8>) -> tensor<4xi1> {
  %0 = tensor.le %a, %b : tensor<4xi8>, tensor<i8> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
