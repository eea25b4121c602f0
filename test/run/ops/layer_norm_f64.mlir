/// tensor.layer_norm in f64 with the default eps.
func.func @main(%x: tensor<2x5xf64>, %w: tensor<5xf64>, %b: tensor<5xf64>) -> tensor<2x5xf64> {
  %r:3 = tensor.layer_norm %x, %w, %b {normalized_ndim = 1} : tensor<2x5xf64>, tensor<5xf64>, tensor<5xf64> -> (tensor<2x5xf64>, tensor<2x1xf64>, tensor<2x1xf64>)
  return %r#0 : tensor<2x5xf64>
}
