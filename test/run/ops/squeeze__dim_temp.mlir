/// mut.squeeze_ of dim 0 of a temporary.
func.func @main(%x: tensor<1x4xf32>) -> tensor<4xf32> {
  %t = tensor.neg %x : tensor<1x4xf32>
  %y = mut.squeeze_ %t {dim = 0} : tensor<1x4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
