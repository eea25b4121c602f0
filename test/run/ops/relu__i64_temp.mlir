/// mut.relu_ on an i64 temporary.
func.func @main(%x: tensor<5xi64>) -> tensor<5xi64> {
  %t = tensor.clone %x : tensor<5xi64>
  mut.relu_ %t : tensor<5xi64>
  return %t : tensor<5xi64>
}
