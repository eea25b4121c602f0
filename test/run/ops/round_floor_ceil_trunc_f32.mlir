/// tensor.round (ties to even, as torch.round), floor, ceil and trunc on
/// halves, negatives, signed zeros, infinities, NaN and values past 2^23;
/// the gradient case is ops/round_gradients_zero.
func.func @main(%a: tensor<12xf32>) -> (tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>) {
  %0 = tensor.round %a : tensor<12xf32>
  %1 = tensor.floor %a : tensor<12xf32>
  %2 = tensor.ceil %a : tensor<12xf32>
  %3 = tensor.trunc %a : tensor<12xf32>
  return %0, %1, %2, %3 : tensor<12xf32>, tensor<12xf32>, tensor<12xf32>, tensor<12xf32>
}
