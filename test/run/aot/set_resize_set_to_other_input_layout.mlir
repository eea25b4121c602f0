/// set_ onto another input's strided view changes shape, strides and offset:
/// x (3 elements) takes src's storage with size [2, 2], strides [1, 3],
/// offset 1; x is returned (an alias of both inputs' storage).
func.func @main(%x: tensor<3xf32>, %src: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %s = mut.set_ %x, %src {aot.no_grad} : tensor<3xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  %0 = tensor.mul %s, %two : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %s, %0 : tensor<2x2xf32>, tensor<2x2xf32>
}
