/// tensor.maximum on i32 with broadcasting (3x1 vs 4).
func.func @main(%a: tensor<3x1xi32>, %b: tensor<4xi32>) -> tensor<3x4xi32> {
  %0 = tensor.maximum %a, %b : tensor<3x1xi32>, tensor<4xi32> -> tensor<3x4xi32>
  return %0 : tensor<3x4xi32>
}
