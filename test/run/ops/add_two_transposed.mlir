/// tensor.add of two transposed views: a fresh contiguous result.
func.func @main(%x: tensor<3x2xf32>, %y: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %a = view.t %x : tensor<3x2xf32> -> tensor<2x3xf32>
  %b = view.t %y : tensor<3x2xf32> -> tensor<2x3xf32>
  %0 = tensor.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
