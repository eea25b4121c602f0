/// tensor.attention: a boolean mask (true keeps) broadcast over batch and heads; a row that keeps nothing gives zeros and a log-sum-exp of -inf.
func.func @main(%a0: tensor<1x2x3x4xf32>, %a1: tensor<1x2x5x4xf32>, %a2: tensor<1x2x5x4xf32>, %a3: tensor<3x5xi1>) -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>) {
  %0:2 = tensor.attention %a0, %a1, %a2, %a3 : tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>, tensor<1x2x5x4xf32>, tensor<3x5xi1> -> (tensor<1x2x3x4xf32>, tensor<1x2x3xf32>)
  return %0#0, %0#1 : tensor<1x2x3x4xf32>, tensor<1x2x3xf32>
}
