/// mut.exp_ on an f64 temporary, then a reduction.
func.func @main(%x: tensor<2x2xf64>) -> tensor<f64> {
  %t = tensor.mul %x, %x : tensor<2x2xf64>
  mut.exp_ %t : tensor<2x2xf64>
  %0 = tensor.sum %t {dims = []} : tensor<2x2xf64> -> tensor<f64>
  return %0 : tensor<f64>
}
