/// tensor.attention: f16 (scores, softmax and products in f32; the log-sum-exp in f32).
func.func @main(%a0: tensor<1x2x3x8xf16>, %a1: tensor<1x2x4x8xf16>, %a2: tensor<1x2x4x8xf16>) -> (tensor<1x2x3x8xf16>, tensor<1x2x3xf32>) {
  %0:2 = tensor.attention %a0, %a1, %a2 : tensor<1x2x3x8xf16>, tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16> -> (tensor<1x2x3x8xf16>, tensor<1x2x3xf32>)
  return %0#0, %0#1 : tensor<1x2x3x8xf16>, tensor<1x2x3xf32>
}
