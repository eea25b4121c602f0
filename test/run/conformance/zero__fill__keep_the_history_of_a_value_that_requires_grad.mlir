/// zero_ and fill_ of values that require grad, where autograd records the
/// writes: eager keeps their history (ZeroBackward, FillBackward), so the
/// outputs require grad and the leaves they depended on get zero gradients,
/// not none (the torch.compile fuzzer's seed 2781). (Each written value is
/// one that no backward formula saves: writing a saved one is an error.)
func.func @main(%a: tensor<3x5xf32>, %b: tensor<3xf32>) -> (tensor<6xf32>, tensor<3xf32>) {
  %v0 = view.select %a {dim = 1, index = 0} : tensor<3x5xf32> -> tensor<3xf32>
  %m = tensor.mul %v0, %v0 : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  %d = tensor.cat %v0, %m {dim = 0} : tensor<3xf32>, tensor<3xf32> -> tensor<6xf32>
  mut.zero_ %d : tensor<6xf32>
  %e = tensor.mul %b, %b : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  mut.fill_ %e {value = 2.5} : tensor<3xf32>
  return %d, %e : tensor<6xf32>, tensor<3xf32>
}
