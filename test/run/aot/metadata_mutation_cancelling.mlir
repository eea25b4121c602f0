/// Two t_ calls cancel out: the input's metadata ends as it started, so it
/// counts as not metadata-mutated; it is returned next to x + 1.
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %b = mut.t_ %a : tensor<3x2xf32> -> tensor<2x3xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  %0 = tensor.add %b, %one : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  return %0, %b : tensor<2x3xf32>, tensor<2x3xf32>
}
