/// resize_ to 0 elements keeps the storage; growing back within it shows
/// the old values (deterministic).
func.func @main(%x: tensor<2x3xf32>) -> (tensor<0xf32>, tensor<4xf32>) {
  %e = mut.resize_ %x {size = [0]} : tensor<2x3xf32> -> tensor<0xf32>
  %c = tensor.clone %e : tensor<0xf32>
  %g = mut.resize_ %e {size = [4]} : tensor<0xf32> -> tensor<4xf32>
  return %c, %g : tensor<0xf32>, tensor<4xf32>
}
