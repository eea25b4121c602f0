// A new leading size-1 dim of expand gets PyTorch's stride (size x stride of the
// next dim): expand [2] -> [1, 2] has strides [2, 1], not [0, 1].
func.func @main(%arg0: tensor<2xf32>) -> (tensor<1x2xf32>) {
  %v0 = "view.expand"(%arg0) {shape = [1, 2]} : (tensor<2xf32>) -> tensor<1x2xf32>
  return %v0 : tensor<1x2xf32>
}
