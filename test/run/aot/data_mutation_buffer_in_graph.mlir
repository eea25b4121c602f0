/// A buffer that does not require grad is mutated with a value that does
/// not require grad (the keep-in-graph case); the result uses the new buffer.
func.func @main(%x: tensor<4xf32>, %buf: tensor<4xf32>) -> tensor<4xf32> {
  %one = tensor.full {value = 1.5} : tensor<f32>
  mut.add_ %buf, %one : tensor<4xf32>, tensor<f32>
  %0 = tensor.mul %x, %buf : tensor<4xf32>
  return %0 : tensor<4xf32>
}
