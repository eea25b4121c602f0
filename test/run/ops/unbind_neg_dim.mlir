/// view.unbind along dim -1 (default attribute dim absent means 0; here -1);
/// only one part is used.
func.func @main(%x: tensor<2x2xf32>) -> tensor<2xf32> {
  %a, %b = view.unbind %x {dim = -1} : tensor<2x2xf32> -> (tensor<2xf32>, tensor<2xf32>)
  %0 = tensor.mul %b, %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
