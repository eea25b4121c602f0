// golden: expect-error
/// An in-place write to an unbind output that requires grad: PyTorch
/// forbids modifying multi-output views in place.
func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r:2 = view.unbind %x : tensor<2x2xf32> -> (tensor<2xf32>, tensor<2xf32>)
  mut.neg_ %r#0 : tensor<2xf32>
  return %x : tensor<2x2xf32>
}
