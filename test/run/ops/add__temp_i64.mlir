/// mut.add_ on a temporary i64 tensor.
func.func @main(%x: tensor<4xi64>, %y: tensor<4xi64>) -> tensor<4xi64> {
  %t = tensor.clone %x : tensor<4xi64>
  mut.add_ %t, %y : tensor<4xi64>
  return %t : tensor<4xi64>
}
