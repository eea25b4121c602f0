/// out and a view of out.detach(): the view does not require grad and
/// has strides [1, 2].
func.func @main(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %out = tensor.tanh %x : tensor<2x2xf32>
  %d = view.detach %out : tensor<2x2xf32>
  %v = view.t %d : tensor<2x2xf32> -> tensor<2x2xf32>
  return %out, %v : tensor<2x2xf32>, tensor<2x2xf32>
}
