/// tensor.layer_norm over the last two dims (normalized_ndim = 2), with
/// affine parameters and a large eps.
func.func @main(%x: tensor<2x2x3xf32>, %w: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x2x3xf32>, tensor<2x1x1xf32>) {
  %r:3 = tensor.layer_norm %x, %w, %b {normalized_ndim = 2, eps = 0.1} : tensor<2x2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32> -> (tensor<2x2x3xf32>, tensor<2x1x1xf32>, tensor<2x1x1xf32>)
  return %r#0, %r#2 : tensor<2x2x3xf32>, tensor<2x1x1xf32>
}
