/// tensor.eq on f32 with some equal elements; the result is i1 and carries no
/// gradient: the gradients of the inputs are zeros.
func.func @main(%a: tensor<6xf32>, %b: tensor<6xf32>) -> tensor<6xi1> {
  %0 = tensor.eq %a, %b : tensor<6xf32> -> tensor<6xi1>
  return %0 : tensor<6xi1>
}
