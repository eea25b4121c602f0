/// An in-place write to an unbind output of a non-grad argument is
/// allowed and visible in the argument.
func.func @main(%x: tensor<2x2xf32>, %y: tensor<2xf32>) -> tensor<2x2xf32> {
  %r:2 = view.unbind %x : tensor<2x2xf32> -> (tensor<2xf32>, tensor<2xf32>)
  mut.add_ %r#1, %y : tensor<2xf32>
  return %x : tensor<2x2xf32>
}
