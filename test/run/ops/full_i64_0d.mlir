/// tensor.full of a 0-d i64 tensor (integer value), added to an argument.
func.func @main(%x: tensor<3xi64>) -> tensor<3xi64> {
  %c = tensor.full {value = 7} : tensor<i64>
  %0 = tensor.add %x, %c : tensor<3xi64>, tensor<i64> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
