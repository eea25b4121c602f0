/// tensor.attention: causal (top-left triangle) with an explicit scale, 3-d.
func.func @main(%a0: tensor<2x5x4xf64>, %a1: tensor<2x5x4xf64>, %a2: tensor<2x5x3xf64>) -> (tensor<2x5x3xf64>, tensor<2x5xf64>) {
  %0:2 = tensor.attention %a0, %a1, %a2 {scale = 0.3, causal} : tensor<2x5x4xf64>, tensor<2x5x4xf64>, tensor<2x5x3xf64> -> (tensor<2x5x3xf64>, tensor<2x5xf64>)
  return %0#0, %0#1 : tensor<2x5x3xf64>, tensor<2x5xf64>
}
