/// view.reshape of a transposed tensor must copy: alias_of_arg is null
/// and the result is contiguous.
func.func @main(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %t = view.t %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = view.reshape %t {shape = [-1]} : tensor<3x2xf32> -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
