func.func @main(%x: tensor<f32>) -> (tensor<f32>, tensor<i64>) {
  %0 = tensor.sum %x : tensor<f32> -> tensor<f32>
  %1 = tensor.argmax %x : tensor<f32> -> tensor<i64>
  return %0, %1 : tensor<f32>, tensor<i64>
}
