/// (x * 3).view(4) and x * 3 again, without grad: two tensors in eager mode,
/// one value once CSE merges the products. The second output must not share
/// the first's storage (a later write through one would show in the other).
func.func @main(%x: tensor<2x2xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %three = tensor.full {value = 3.0} : tensor<f32>
  %t = tensor.mul %x, %three : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %a = view.view %t {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  %u = tensor.mul %x, %three : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  return %a, %u : tensor<4xf32>, tensor<2x2xf32>
}
