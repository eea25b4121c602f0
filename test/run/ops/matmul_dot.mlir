/// tensor.matmul of two 1-D tensors: a dot product (0-d result).
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %0 = tensor.matmul %a, %b : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
