/// Nothing requires grad: two views of an intermediate and the
/// intermediate itself (the inference path).
func.func @main(%x: tensor<3x2xf32>) -> (tensor<2x3xf32>, tensor<2xf32>, tensor<3x2xf32>) {
  %t = tensor.neg %x : tensor<3x2xf32>
  %a = view.t %t : tensor<3x2xf32> -> tensor<2x3xf32>
  %b = view.select %t {dim = 0, index = 2} : tensor<3x2xf32> -> tensor<2xf32>
  return %a, %b, %t : tensor<2x3xf32>, tensor<2xf32>, tensor<3x2xf32>
}
