// golden: expect-error
// squeeze_ under no_grad changes the shape of x, whose history recorded
// [1, 3]: the gradient [3] cannot be reduced to it.
func.func @main(%arg0: tensor<1x3xf32>) -> (tensor<3xf32>) {
  %x = "tensor.mul"(%arg0, %arg0) : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  %s = "mut.squeeze_"(%x) {dim = 0 : i64, aot.no_grad} : (tensor<1x3xf32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}
