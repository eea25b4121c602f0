/// tensor.softmax over the last dim; a non-trivial tangent (a uniform
/// tangent would give a zero gradient).
func.func @main(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = tensor.softmax %a {dim = -1} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
