/// Overlapping inputs: b is transposed in place (metadata) and a is written
/// (data); b is a member of the synthetic base, so its new layout comes back
/// as an extra output the runtime applies with as_strided_.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %bt = mut.t_ %b : tensor<2x3xf32> -> tensor<3x2xf32>
  %three = tensor.full {value = 3.0} : tensor<f32>
  mut.mul_ %a, %three : tensor<2x3xf32>, tensor<f32>
  %0 = tensor.add %a, %a : tensor<2x3xf32>
  return %bt, %0 : tensor<3x2xf32>, tensor<2x3xf32>
}
