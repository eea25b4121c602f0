/// view.reshape in f16 with -1.
func.func @main(%a: tensor<3x4xf16>) -> tensor<2x6xf16> {
  %0 = view.reshape %a {shape = [2, -1]} : tensor<3x4xf16> -> tensor<2x6xf16>
  return %0 : tensor<2x6xf16>
}
