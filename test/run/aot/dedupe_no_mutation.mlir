/// f(x, x) without mutation (dedupe strategy 1): each position is traced as
/// an independent input, so the graph is x * y + y and works for any
/// duplication pattern.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.mul %x, %y : tensor<2x3xf32>
  %1 = tensor.add %0, %y : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
