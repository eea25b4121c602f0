/// Two args are views of one differentiable base ("base": true): arg 0
/// is mutated by w, arg 1 (overlapping) is returned; gradients come per storage.
func.func @main(%a: tensor<3xf32>, %b: tensor<2x2xf32>, %w: tensor<3xf32>) -> tensor<2x2xf32> {
  mut.mul_ %a, %w : tensor<3xf32>
  %0 = tensor.mul %b, %b : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
