/// tensor.ne on f32 against a 0-d tensor.
func.func @main(%a: tensor<5xf32>, %b: tensor<f32>) -> tensor<5xi1> {
  %0 = tensor.ne %a, %b : tensor<5xf32>, tensor<f32> -> tensor<5xi1>
  return %0 : tensor<5xi1>
}
