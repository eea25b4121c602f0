/// tensor.add of a matrix and a 0-d tensor (a scalar); only the scalar requires grad.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<f32>) -> tensor<2x2xf32> {
  %0 = tensor.add %a, %b : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
