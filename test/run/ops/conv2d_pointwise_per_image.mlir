/// tensor.conv, pointwise, channel-major with 64 positions per image (one GEMM per image into the result), then a squeeze-and-excite gate: the images' channel means as the rows of one GEMM; with gradients.
func.func @main(%x: tensor<2x4x8x8xf32>, %w: tensor<6x4x1x1xf32>, %b: tensor<6xf32>, %w2: tensor<6x6x1x1xf32>, %b2: tensor<6xf32>) -> tensor<2x6x8x8xf32> {
  %c = tensor.conv %x, %w, %b : tensor<2x4x8x8xf32>, tensor<6x4x1x1xf32>, tensor<6xf32> -> tensor<2x6x8x8xf32>
  %t = tensor.tanh %c : tensor<2x6x8x8xf32>
  %m = tensor.mean %t {dims = [2, 3], keepdim} : tensor<2x6x8x8xf32> -> tensor<2x6x1x1xf32>
  %s = tensor.conv %m, %w2, %b2 : tensor<2x6x1x1xf32>, tensor<6x6x1x1xf32>, tensor<6xf32> -> tensor<2x6x1x1xf32>
  %gate = tensor.sigmoid %s : tensor<2x6x1x1xf32>
  %y = tensor.mul %t, %gate : tensor<2x6x8x8xf32>, tensor<2x6x1x1xf32> -> tensor<2x6x8x8xf32>
  return %y : tensor<2x6x8x8xf32>
}
