/// tensor.sum in f16 with keepdim = false written out.
func.func @main(%a: tensor<3x4xf16>) -> tensor<4xf16> {
  %0 = tensor.sum %a {dims = [0], keepdim = false} : tensor<3x4xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
