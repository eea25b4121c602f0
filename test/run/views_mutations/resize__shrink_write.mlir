/// resize_ shrinking a temporary view's owner then writing to it.
func.func @main(%x: tensor<3x2xi32>) -> tensor<2xi32> {
  %t = tensor.clone %x : tensor<3x2xi32>
  %s = mut.resize_ %t {size = [2]} : tensor<3x2xi32> -> tensor<2xi32>
  mut.neg_ %s : tensor<2xi32>
  return %s : tensor<2xi32>
}
