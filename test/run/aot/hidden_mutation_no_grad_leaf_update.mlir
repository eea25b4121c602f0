/// An SGD-style step on a leaf parameter under aot.no_grad after using it:
/// y = x * 3 + w; with no_grad: w.sub_(0.1 * x). The parameter is returned
/// and still a leaf that requires grad.
func.func @main(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %three = tensor.full {value = 3.0} : tensor<f32>
  %t = tensor.mul %x, %three : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %y = tensor.add %t, %w : tensor<2x2xf32>
  %lr = tensor.full {value = 0.1} : tensor<f32>
  %g = tensor.mul %x, %lr {aot.no_grad} : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  mut.sub_ %w, %g {aot.no_grad} : tensor<2x2xf32>
  return %y, %w : tensor<2x2xf32>, tensor<2x2xf32>
}
