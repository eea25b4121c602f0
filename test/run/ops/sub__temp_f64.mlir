/// mut.sub_ of a 0-d f64 tensor from a temporary.
func.func @main(%x: tensor<2x2xf64>, %y: tensor<f64>) -> tensor<2x2xf64> {
  %t = tensor.mul %x, %x : tensor<2x2xf64>
  mut.sub_ %t, %y : tensor<2x2xf64>, tensor<f64>
  return %t : tensor<2x2xf64>
}
