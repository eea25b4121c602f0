// golden: expect-error
/// view.view of a transposed tensor: the strides do not allow a view.
func.func @main(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %t = view.t %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %v = view.view %t {shape = [6]} : tensor<3x2xf32> -> tensor<6xf32>
  return %v : tensor<6xf32>
}
