/// view.slice_scatter into a transposed base: the result is a fresh
/// contiguous copy.
func.func @main(%x: tensor<3x2xf32>, %s: tensor<2xf32>) -> tensor<2x3xf32> {
  %b = view.t %x : tensor<3x2xf32> -> tensor<2x3xf32>
  %0 = view.select_scatter %b, %s {dim = 1, index = 2} : tensor<2x3xf32>, tensor<2xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
