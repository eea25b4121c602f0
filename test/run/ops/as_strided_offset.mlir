/// view.as_strided with a storage offset and a transposed layout.
func.func @main(%a: tensor<3x3xf32>) -> tensor<2x2xf32> {
  %0 = view.as_strided %a {size = [2, 2], stride = [1, 3], offset = 1} : tensor<3x3xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
