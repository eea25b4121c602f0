/// tensor.index_select of rows with repeats.
func.func @main(%a: tensor<4x3xf32>, %b: tensor<5xi64>) -> tensor<5x3xf32> {
  %0 = tensor.index_select %a, %b {dim = 0} : tensor<4x3xf32>, tensor<5xi64> -> tensor<5x3xf32>
  return %0 : tensor<5x3xf32>
}
