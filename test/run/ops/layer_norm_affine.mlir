/// tensor.layer_norm with weight and bias; only the normalised output is returned.
func.func @main(%x: tensor<2x3x4xf32>, %w: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x3x4xf32> {
  %out, %mean, %rstd = tensor.layer_norm %x, %w, %b {normalized_ndim = 1, eps = 1.0e-5} : tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32> -> (tensor<2x3x4xf32>, tensor<2x3x1xf32>, tensor<2x3x1xf32>)
  return %out : tensor<2x3x4xf32>
}
