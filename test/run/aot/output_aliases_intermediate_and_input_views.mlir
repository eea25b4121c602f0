/// Views of an intermediate mixed with views of an input and a plain
/// output: (x * 3).view(4), x.view(4) and x * 3 (a second, distinct tensor).
func.func @main(%x: tensor<2x2xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>) {
  %three = tensor.full {value = 3.0} : tensor<f32>
  %t = tensor.mul %x, %three : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %a = view.view %t {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  %b = view.view %x {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  %u = tensor.mul %x, %three : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %a, %b, %u : tensor<4xf32>, tensor<4xf32>, tensor<2x2xf32>
}
