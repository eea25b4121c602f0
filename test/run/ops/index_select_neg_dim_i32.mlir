/// tensor.index_select along dim -1 with i32 indices.
func.func @main(%a: tensor<2x4xf32>, %b: tensor<2xi32>) -> tensor<2x2xf32> {
  %0 = tensor.index_select %a, %b {dim = -1} : tensor<2x4xf32>, tensor<2xi32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
