// golden: expect-error
/// set_ on a leaf that requires grad outside no_grad: PyTorch raises.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %s = mut.set_ %a, %b : tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}
