/// The same view of an intermediate returned twice: v = (x + 1).t();
/// return v, v.
func.func @main(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %one = tensor.full {value = 1.0} : tensor<f32>
  %t = tensor.add %x, %one : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  %v = view.t %t : tensor<2x3xf32> -> tensor<3x2xf32>
  return %v, %v : tensor<3x2xf32>, tensor<3x2xf32>
}
