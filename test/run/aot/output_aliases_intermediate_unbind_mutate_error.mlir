// golden: expect-error
/// Mutating an unbind output of an intermediate that requires grad:
/// PyTorch forbids in-place writes to multi-output views.
func.func @main(%x: tensor<2x2xf32>) -> tensor<2xf32> {
  %two = tensor.full {value = 2.0} : tensor<f32>
  %t = tensor.mul %x, %two : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %r:2 = view.unbind %t : tensor<2x2xf32> -> (tensor<2xf32>, tensor<2xf32>)
  mut.mul_ %r#0, %two : tensor<2xf32>, tensor<f32>
  return %r#1 : tensor<2xf32>
}
