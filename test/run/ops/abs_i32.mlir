/// tensor.abs on i32.
func.func @main(%a: tensor<6xi32>) -> tensor<6xi32> {
  %0 = tensor.abs %a : tensor<6xi32>
  return %0 : tensor<6xi32>
}
