/// view.unbind along dim 0 into three views.
func.func @main(%x: tensor<3x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:3 = view.unbind %x {dim = 0} : tensor<3x2xf32> -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
