/// mut.div_ on an f16 temporary.
func.func @main(%x: tensor<3xf16>, %y: tensor<3xf16>) -> tensor<3xf16> {
  %t = tensor.clone %x : tensor<3xf16>
  mut.div_ %t, %y : tensor<3xf16>
  return %t : tensor<3xf16>
}
