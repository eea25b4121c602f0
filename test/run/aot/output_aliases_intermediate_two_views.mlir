/// Two views of the same intermediate returned: t = x * y;
/// return t.view(-1), t.t() (the base becomes an extra output; the two
/// outputs share one storage, strides [1] and [1, 3]).
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>) {
  %t = tensor.mul %x, %y : tensor<2x3xf32>
  %a = view.view %t {shape = [-1]} : tensor<2x3xf32> -> tensor<6xf32>
  %b = view.t %t : tensor<2x3xf32> -> tensor<3x2xf32>
  return %a, %b : tensor<6xf32>, tensor<3x2xf32>
}
