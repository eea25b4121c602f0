/// tensor.attention: an additive padding mask [B, 1, 1, S] (Hugging Face's), -inf on padded keys, with causal.
func.func @main(%a0: tensor<2x2x5x4xf32>, %a1: tensor<2x2x5x4xf32>, %a2: tensor<2x2x5x4xf32>, %a3: tensor<2x1x1x5xf32>) -> (tensor<2x2x5x4xf32>, tensor<2x2x5xf32>) {
  %0:2 = tensor.attention %a0, %a1, %a2, %a3 {causal} : tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x4xf32>, tensor<2x1x1x5xf32> -> (tensor<2x2x5x4xf32>, tensor<2x2x5xf32>)
  return %0#0, %0#1 : tensor<2x2x5x4xf32>, tensor<2x2x5xf32>
}
