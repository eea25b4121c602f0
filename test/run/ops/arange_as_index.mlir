/// tensor.arange of i64 used as an index_select index (reverses rows).
func.func @main(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %i = tensor.arange {start = 2, step = -1} : tensor<3xi64>
  %0 = tensor.index_select %x, %i {dim = 0} : tensor<3x2xf32>, tensor<3xi64> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
