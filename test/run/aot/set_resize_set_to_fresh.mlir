/// set_ (under no_grad) onto a fresh tensor computed in the program: the
/// input x (3 elements, no grad) ends as a 2x2 tensor holding w * w in a
/// storage no other input shares; x is returned.
func.func @main(%x: tensor<3xf32>, %w: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %t = tensor.mul %w, %w : tensor<2x2xf32>
  %s = mut.set_ %x, %t {aot.no_grad} : tensor<3xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  %0 = tensor.add %s, %one : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %s, %0 : tensor<2x2xf32>, tensor<2x2xf32>
}
