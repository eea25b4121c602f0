/// mut.tanh_ on a bf16 temporary.
func.func @main(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %t = tensor.clone %x : tensor<4xbf16>
  mut.tanh_ %t : tensor<4xbf16>
  return %t : tensor<4xbf16>
}
