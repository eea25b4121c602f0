// unsqueeze_ under no_grad: the gradient [1, 3] reaches a history recorded as
// [3], which expands to it, so autograd sums it back and raises nothing.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<1x3xf32>) {
  %x = "tensor.mul"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = "mut.unsqueeze_"(%x) {dim = 0 : i64, aot.no_grad} : (tensor<3xf32>) -> tensor<1x3xf32>
  return %s : tensor<1x3xf32>
}
