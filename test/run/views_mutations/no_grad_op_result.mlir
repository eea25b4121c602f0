/// A pure op under aot.no_grad gives a result that does not require grad.
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %e = tensor.exp %x {aot.no_grad} : tensor<3xf32>
  %0 = tensor.mul %e, %x : tensor<3xf32>
  return %e, %0 : tensor<3xf32>, tensor<3xf32>
}
