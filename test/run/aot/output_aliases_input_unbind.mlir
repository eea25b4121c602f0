/// unbind outputs along dim 0 of a 3x2 input (aliasing hidden from
/// AOTAutograd, but each output still shares the caller's storage).
func.func @main(%x: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = view.unbind %x {dim = 0} : tensor<3x2xf32> -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#2, %r#0, %r#1 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
