/// Views of an intermediate computed under aot.no_grad from an input that
/// requires grad: the base does not require grad, neither do the outputs.
func.func @main(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %t = tensor.mul %x, %y {aot.no_grad} : tensor<2x2xf32>
  %a = view.view %t {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  %b = view.t %t : tensor<2x2xf32> -> tensor<2x2xf32>
  %0 = tensor.add %x, %y : tensor<2x2xf32>
  return %a, %b, %0 : tensor<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
