// golden: expect-error
/// resize_ of a tensor that requires grad is an error, even a non-leaf.
func.func @main(%x: tensor<4xf32>) -> tensor<2xf32> {
  %y = mut.resize_ %x {size = [2]} : tensor<4xf32> -> tensor<2xf32>
  return %y : tensor<2xf32>
}
