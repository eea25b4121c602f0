/// mut.resize_ shrinking an argument that does not require grad.
func.func @main(%x: tensor<2x3xf32>) -> tensor<4xf32> {
  %y = mut.resize_ %x {size = [4]} : tensor<2x3xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
