/// split_with_sizes outputs (another multi-output view): sizes [1, 2]
/// along dim 1 of a 2x3 input, offsets 0 and 1.
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>) {
  %r:2 = view.split %x {dim = 1, sizes = [1, 2]} : tensor<2x3xf32> -> (tensor<2x1xf32>, tensor<2x2xf32>)
  return %r#0, %r#1 : tensor<2x1xf32>, tensor<2x2xf32>
}
