/// The (out, out.detach()) pattern: the second output is an alias of the
/// first that does not require grad.
func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %out = tensor.sin %x : tensor<2x2xf32>
  %d = view.detach %out : tensor<2x2xf32>
  return %out, %d : tensor<2x2xf32>, tensor<2x2xf32>
}
