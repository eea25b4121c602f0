/// Three non-leaf inputs mutated the same way (mul_ by y) but differently
/// seen: a normally, b under aot.no_grad, c through view.detach. Only a's
/// mutation enters the gradients (of a and of y).
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %c: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  mut.mul_ %a, %y : tensor<2x2xf32>
  mut.mul_ %b, %y {aot.no_grad} : tensor<2x2xf32>
  %cd = view.detach %c : tensor<2x2xf32>
  mut.mul_ %cd, %y : tensor<2x2xf32>
  %0 = tensor.add %a, %b : tensor<2x2xf32>
  %1 = tensor.add %0, %c : tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
