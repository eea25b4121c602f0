/// x.add_(1) lands in x's original storage, then x.set_(src) under no_grad,
/// then x.mul_(k): that write lands in src's storage (args_after[1]).
func.func @main(%x: tensor<4xf32>, %src: tensor<4xf32>, %k: tensor<4xf32>, %z: tensor<4xf32>) -> tensor<4xf32> {
  %one = tensor.full {value = 1.0} : tensor<f32>
  mut.add_ %x, %one : tensor<4xf32>, tensor<f32>
  %s = mut.set_ %x, %src {aot.no_grad} : tensor<4xf32>
  mut.mul_ %s, %k : tensor<4xf32>
  %0 = tensor.mul %s, %z : tensor<4xf32>
  return %0 : tensor<4xf32>
}
