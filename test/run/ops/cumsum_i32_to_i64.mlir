/// tensor.cumsum of i32 values sums in i64, as PyTorch does (no overflow
/// at 2^31).
func.func @main(%a: tensor<4xi32>) -> tensor<4xi64> {
  %0 = tensor.cumsum %a {dim = 0} : tensor<4xi32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
