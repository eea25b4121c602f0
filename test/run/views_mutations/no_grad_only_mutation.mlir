/// Only no_grad mutations of a non-leaf argument: autograd does not see
/// them, so the argument's final value is not part of the objective.
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  mut.add_ %a, %b {aot.no_grad} : tensor<3xf32>
  mut.relu_ %a {aot.no_grad} : tensor<3xf32>
  %0 = tensor.mul %a, %b : tensor<3xf32>
  return %0 : tensor<3xf32>
}
