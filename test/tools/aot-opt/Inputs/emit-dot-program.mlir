// The program of emit-dot.mlir's golden picture: a view, a write through
// it, and a chain whose min-cut partition recomputes in the backward.
func.func @step(%x: tensor<4x8xf32> {aot.requires_grad}, %buf: tensor<8xf32>) -> tensor<4x8xf32> {
  %row = view.select %buf {dim = 0, index = 2} : tensor<8xf32> -> tensor<f32>
  %one = tensor.constant dense<1.0> : tensor<f32>
  mut.copy_ %row, %one : tensor<f32>, tensor<f32>
  %a = tensor.tanh %x : tensor<4x8xf32>
  %b = tensor.mul %a, %x : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %b : tensor<4x8xf32>
}
