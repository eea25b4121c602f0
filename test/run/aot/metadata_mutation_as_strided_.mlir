/// x.as_strided_([2, 2], [1, 3], 1) re-lays the 2x3 input over elements
/// 1, 4, 2, 5 of its storage; the caller sees the new size/stride/offset.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %a = mut.as_strided_ %x {size = [2, 2], stride = [1, 3], offset = 1} : tensor<2x3xf32> -> tensor<2x2xf32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  %0 = tensor.mul %a, %two : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
