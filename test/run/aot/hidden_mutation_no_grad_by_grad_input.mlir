/// A no_grad mutation by a tensor that requires grad: a.mul_(w) under
/// aot.no_grad records nothing, so w gets no gradient from it; a + w after
/// it does give w a gradient.
func.func @main(%a: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<3xf32> {
  mut.mul_ %a, %w {aot.no_grad} : tensor<3xf32>
  %0 = tensor.mul %a, %w : tensor<3xf32>
  return %0 : tensor<3xf32>
}
