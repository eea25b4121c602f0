/// as_strided_ shrinks a non-leaf argument to a window, then a write
/// through the new metadata.
func.func @main(%x: tensor<6xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %w = mut.as_strided_ %x {size = [2], stride = [2], offset = 1} : tensor<6xf32> -> tensor<2xf32>
  mut.add_ %w, %y : tensor<2xf32>
  return %w : tensor<2xf32>
}
