// golden: no-fd (NaN and infinite inputs)
/// tensor.sign as PyTorch's `(0 < x) - (x < 0)`: NaN and -0.0 give +0.0,
/// the infinities ±1; then abs's gradient (sign(x) · g), 0 at NaN.
func.func @main(%a: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = tensor.sign %a : tensor<2x4xf32>
  %1 = tensor.abs %a : tensor<2x4xf32>
  return %0, %1 : tensor<2x4xf32>, tensor<2x4xf32>
}
