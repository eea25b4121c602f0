/// tensor.softplus (default, and beta 2 with threshold 5, whose linear
/// branch the last values take) and tensor.log_sigmoid on f32: PyTorch's
/// values and its backward formulas ((g·z)/(z + 1); g·(m - s·z/(1 + z))).
func.func @main(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = tensor.softplus %a : tensor<8xf32>
  %1 = tensor.softplus %a {beta = 2.0, threshold = 5.0} : tensor<8xf32>
  %2 = tensor.log_sigmoid %a : tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
