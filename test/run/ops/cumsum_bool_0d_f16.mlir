/// tensor.cumsum of bools counts them (in i64); of a 0-d tensor it is the
/// value; of halves it rounds each running sum.
func.func @main(%m: tensor<2x3xi1>, %s: tensor<f32>, %h: tensor<6xf16>) -> (tensor<2x3xi64>, tensor<f32>, tensor<6xf16>) {
  %0 = tensor.cumsum %m {dim = 1} : tensor<2x3xi1> -> tensor<2x3xi64>
  %1 = tensor.cumsum %s {dim = -1} : tensor<f32>
  %2 = tensor.cumsum %h {dim = 0, reverse} : tensor<6xf16>
  return %0, %1, %2 : tensor<2x3xi64>, tensor<f32>, tensor<6xf16>
}
