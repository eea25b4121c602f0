/// tensor.arange on i64 with start 3 and step -2.
func.func @main() -> tensor<4xi64> {
  %0 = tensor.arange {start = 3, step = -2} : tensor<4xi64>
  return %0 : tensor<4xi64>
}
