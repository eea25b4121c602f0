/// tensor.var over dim 0 with keepdim, in f64.
func.func @main(%a: tensor<4x2xf64>) -> tensor<1x2xf64> {
  %0 = tensor.var %a {dims = [0], keepdim} : tensor<4x2xf64> -> tensor<1x2xf64>
  return %0 : tensor<1x2xf64>
}
