/// The intermediate itself is returned together with views of it (a
/// transpose and a row select at offset 3): alias_of_intermediate_base_is_user_output.
func.func @main(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>, tensor<3xf32>) {
  %t = tensor.exp %x : tensor<2x3xf32>
  %a = view.t %t : tensor<2x3xf32> -> tensor<3x2xf32>
  %b = view.select %t {dim = 0, index = 1} : tensor<2x3xf32> -> tensor<3xf32>
  return %a, %t, %b : tensor<3x2xf32>, tensor<2x3xf32>, tensor<3xf32>
}
