/// view.detach: the result aliases the argument but carries no gradient;
/// x * detach(x) has gradient detach(x) = x only through the first factor.
func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %d = view.detach %x : tensor<4xf32>
  %0 = tensor.mul %x, %d : tensor<4xf32>
  return %0, %d : tensor<4xf32>, tensor<4xf32>
}
