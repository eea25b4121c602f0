/// Two views of one intermediate, one of them mutated in place before the
/// return: the write is visible through the other (shared storage).
func.func @main(%x: tensor<2x2xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %two = tensor.full {value = 2.0} : tensor<f32>
  %t = tensor.mul %x, %two : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %a = view.view %t {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  %b = view.t %t : tensor<2x2xf32> -> tensor<2x2xf32>
  mut.add_ %a, %y : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<2x2xf32>
}
