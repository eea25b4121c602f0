/// Aliased inputs where one only has a metadata mutation (t_): no
/// synthetic base; the runtime replays the transpose on the caller's tensor.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<6xf32>) -> (tensor<3x2xf32>, tensor<6xf32>) {
  %t = mut.t_ %a : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = tensor.neg %t : tensor<3x2xf32>
  %1 = tensor.exp %b : tensor<6xf32>
  return %0, %1 : tensor<3x2xf32>, tensor<6xf32>
}
