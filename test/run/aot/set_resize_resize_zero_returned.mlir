/// resize_ to zero elements of an input that is then returned: an empty
/// output aliasing arg 0.
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<0xf32>, tensor<3xf32>) {
  %e = mut.resize_ %x {size = [0]} : tensor<3xf32> -> tensor<0xf32>
  %0 = tensor.exp %y : tensor<3xf32>
  return %e, %0 : tensor<0xf32>, tensor<3xf32>
}
