/// mut.neg_ on an i32 argument (no grad).
func.func @main(%x: tensor<4xi32>) {
  mut.neg_ %x : tensor<4xi32>
  return
}
