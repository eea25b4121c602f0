/// A metadata mutation of an input that does not require grad
/// (y.unsqueeze_(0)); y itself is returned (1x3, alias of arg 1).
func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<1x3xf32>) {
  %u = mut.unsqueeze_ %y {dim = 0} : tensor<3xf32> -> tensor<1x3xf32>
  %0 = tensor.mul %x, %u : tensor<2x3xf32>, tensor<1x3xf32> -> tensor<2x3xf32>
  return %0, %u : tensor<2x3xf32>, tensor<1x3xf32>
}
