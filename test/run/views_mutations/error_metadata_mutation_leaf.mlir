// golden: expect-error
/// A metadata mutation (t_) of a leaf that requires grad is an error too.
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %y = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
