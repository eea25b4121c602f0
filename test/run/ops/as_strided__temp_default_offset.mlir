/// mut.as_strided_ on a temporary with the default offset 0.
func.func @main(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %t = tensor.mul %x, %x : tensor<2x3xf32>
  %y = mut.as_strided_ %t {size = [3], stride = [2]} : tensor<2x3xf32> -> tensor<3xf32>
  return %y : tensor<3xf32>
}
