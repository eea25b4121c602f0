/// Catalogue ops that carry PyTorch's own backward formulas, on f32:
/// tensor.clamp_tensor (its joint rule; crossed bounds included),
/// tensor.mish, tensor.logit (with and without eps), tensor.glu and
/// tensor.lerp (a weight tensor and a number), tensor.bce_logits. Inputs stay away from ties
/// and bounds, which the eager check's finite differences cannot take.
func.func @main(%a: tensor<8xf32>, %b: tensor<8xf32>, %c: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = tensor.clamp_tensor %b, %a, %c : tensor<8xf32>
  %1 = tensor.mish %b : tensor<8xf32>
  %2 = tensor.logit %a : tensor<8xf32>
  %3 = tensor.logit %a {eps = 0.2} : tensor<8xf32>
  %4 = tensor.glu %b, %c : tensor<8xf32>
  %5 = tensor.lerp %b, %c, %a : tensor<8xf32>
  %6 = tensor.lerp %b, %c {weight = 0.7} : tensor<8xf32>
  %7 = tensor.bce_logits %b, %a : tensor<8xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
