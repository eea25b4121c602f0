/// mut.resize_ growing an i64 argument, then filling it completely
/// (new memory is uninitialised).
func.func @main(%x: tensor<2xi64>) -> tensor<2x3xi64> {
  %y = mut.resize_ %x {size = [2, 3]} : tensor<2xi64> -> tensor<2x3xi64>
  mut.fill_ %y {value = 5} : tensor<2x3xi64>
  return %y : tensor<2x3xi64>
}
