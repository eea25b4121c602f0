/// view.alias of an i32 tensor.
func.func @main(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = view.alias %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}
