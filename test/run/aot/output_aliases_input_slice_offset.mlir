/// Slices with non-zero offsets: every other column from 1 (offset 1,
/// strides [4, 2]) and the last row (offset 8); plus a permute of the input.
func.func @main(%x: tensor<3x4xf32>) -> (tensor<3x2xf32>, tensor<1x4xf32>, tensor<4x3xf32>) {
  %a = view.slice %x {dim = 1, start = 1, step = 2} : tensor<3x4xf32> -> tensor<3x2xf32>
  %b = view.slice %x {dim = 0, start = 2, end = 3} : tensor<3x4xf32> -> tensor<1x4xf32>
  %c = view.permute %x {dims = [1, 0]} : tensor<3x4xf32> -> tensor<4x3xf32>
  return %a, %b, %c : tensor<3x2xf32>, tensor<1x4xf32>, tensor<4x3xf32>
}
