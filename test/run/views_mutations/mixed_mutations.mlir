/// A normal add_, a no_grad mul_ and a detached sub_ on one non-leaf
/// argument; only the add_ is differentiated. The argument is also returned.
func.func @main(%a: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  mut.add_ %a, %y : tensor<2x2xf32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %a, %two {aot.no_grad} : tensor<2x2xf32>, tensor<f32>
  %d = view.detach %a : tensor<2x2xf32>
  %half = tensor.full {value = 0.5} : tensor<f32>
  mut.sub_ %d, %half : tensor<2x2xf32>, tensor<f32>
  %0 = tensor.mul %a, %y : tensor<2x2xf32>
  return %0, %a : tensor<2x2xf32>, tensor<2x2xf32>
}
