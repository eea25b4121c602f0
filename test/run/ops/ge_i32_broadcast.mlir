/// tensor.ge on i32, 3 vs 2x1.
func.func @main(%a: tensor<3xi32>, %b: tensor<2x1xi32>) -> tensor<2x3xi1> {
  %0 = tensor.ge %a, %b : tensor<3xi32>, tensor<2x1xi32> -> tensor<2x3xi1>
  return %0 : tensor<2x3xi1>
}
