/// As base_is_output, with the intermediate returned before its views
/// (exp(x), exp(x).t(), exp(x)[1]).
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x2xf32>, tensor<3xf32>) {
  %t = tensor.exp %x : tensor<2x3xf32>
  %a = view.t %t : tensor<2x3xf32> -> tensor<3x2xf32>
  %b = view.select %t {dim = 0, index = 1} : tensor<2x3xf32> -> tensor<3xf32>
  return %t, %a, %b : tensor<2x3xf32>, tensor<3x2xf32>, tensor<3xf32>
}
