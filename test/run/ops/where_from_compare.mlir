/// A masked select: where(x > 0, x, 0.1 * x) (leaky ReLU) built from a
/// comparison and a constant.
func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %zero = tensor.full {value = 0.0} : tensor<f32>
  %c = tensor.gt %x, %zero : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi1>
  %k = tensor.full {value = 0.1} : tensor<f32>
  %s = tensor.mul %x, %k : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %0 = tensor.where %c, %x, %s : tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
