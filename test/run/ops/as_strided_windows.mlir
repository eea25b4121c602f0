/// view.as_strided with overlapping windows (stride 1 < size): the
/// gradient accumulates over overlaps.
func.func @main(%a: tensor<6xf32>) -> tensor<4x3xf32> {
  %0 = view.as_strided %a {size = [4, 3], stride = [1, 1]} : tensor<6xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
