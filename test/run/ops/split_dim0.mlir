/// view.split along dim 0 with sizes [1, 2].
func.func @main(%x: tensor<3x2xf32>) -> (tensor<1x2xf32>, tensor<2x2xf32>) {
  %r:2 = view.split %x {dim = 0, sizes = [1, 2]} : tensor<3x2xf32> -> (tensor<1x2xf32>, tensor<2x2xf32>)
  return %r#0, %r#1 : tensor<1x2xf32>, tensor<2x2xf32>
}
