/// The derivative of round, floor, ceil and trunc is zero (away from the
/// steps, where finite differences agree), also through a product.
func.func @main(%a: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.round %a : tensor<2x3xf32>
  %1 = tensor.floor %a : tensor<2x3xf32>
  %2 = tensor.ceil %a : tensor<2x3xf32>
  %3 = tensor.trunc %a : tensor<2x3xf32>
  %4 = tensor.add %0, %1 : tensor<2x3xf32>
  %5 = tensor.add %2, %3 : tensor<2x3xf32>
  %6 = tensor.mul %4, %5 : tensor<2x3xf32>
  %7 = tensor.add %6, %a : tensor<2x3xf32>
  return %7 : tensor<2x3xf32>
}
