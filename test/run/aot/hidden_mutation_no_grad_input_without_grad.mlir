/// A no_grad mutation of an input that does not require grad, mixed with a
/// requires-grad input: the mutation can stay in the graph.
func.func @main(%x: tensor<2x2xf32>, %buf: tensor<2x2xf32>) -> tensor<2x2xf32> {
  mut.add_ %buf, %x {aot.no_grad} : tensor<2x2xf32>
  %0 = tensor.mul %x, %buf : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
