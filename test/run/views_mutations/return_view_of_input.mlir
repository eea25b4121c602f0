/// Returning views of an argument (a slice and a transpose): both alias
/// arg 0 with their own strides and offsets.
func.func @main(%x: tensor<3x4xf32>) -> (tensor<2x4xf32>, tensor<4x3xf32>) {
  %s = view.slice %x {dim = 0, start = 1} : tensor<3x4xf32> -> tensor<2x4xf32>
  %t = view.t %x : tensor<3x4xf32> -> tensor<4x3xf32>
  return %s, %t : tensor<2x4xf32>, tensor<4x3xf32>
}
