// golden: expect-error
/// A metadata mutation (unsqueeze_) of a leaf that requires grad outside
/// no_grad: PyTorch raises.
func.func @main(%x: tensor<3xf32>) -> tensor<1x3xf32> {
  %u = mut.unsqueeze_ %x {dim = 0} : tensor<3xf32> -> tensor<1x3xf32>
  return %u : tensor<1x3xf32>
}
