/// mut.clamp_ with only a minimum on an i64 argument.
func.func @main(%x: tensor<5xi64>) -> tensor<5xi64> {
  mut.clamp_ %x {min = 0} : tensor<5xi64>
  return %x : tensor<5xi64>
}
