/// tensor.layer_norm over the last dim without weight and bias; returns
/// out, mean and rstd (mean/rstd have shape 3x1).
func.func @main(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x1xf32>, tensor<3x1xf32>) {
  %r:3 = tensor.layer_norm %x {normalized_ndim = 1} : tensor<3x4xf32> -> (tensor<3x4xf32>, tensor<3x1xf32>, tensor<3x1xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x4xf32>, tensor<3x1xf32>, tensor<3x1xf32>
}
