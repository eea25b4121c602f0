/// x.squeeze_() (every size-1 dim) turns 1x3x1 into 3; x + y afterwards.
func.func @main(%x: tensor<1x3x1xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %s = mut.squeeze_ %x : tensor<1x3x1xf32> -> tensor<3xf32>
  %0 = tensor.add %s, %y : tensor<3xf32>
  return %0 : tensor<3xf32>
}
