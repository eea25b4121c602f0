/// Two intermediates, each with two returned views, interleaved in the
/// outputs: t1 = x * y, t2 = x + y; return t1.view(6), t2.t(), t1[1], t2.view(3, 2).
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>, tensor<3xf32>, tensor<3x2xf32>) {
  %t1 = tensor.mul %x, %y : tensor<2x3xf32>
  %t2 = tensor.add %x, %y : tensor<2x3xf32>
  %a = view.view %t1 {shape = [6]} : tensor<2x3xf32> -> tensor<6xf32>
  %b = view.t %t2 : tensor<2x3xf32> -> tensor<3x2xf32>
  %c = view.select %t1 {dim = 0, index = 1} : tensor<2x3xf32> -> tensor<3xf32>
  %d = view.view %t2 {shape = [3, 2]} : tensor<2x3xf32> -> tensor<3x2xf32>
  return %a, %b, %c, %d : tensor<6xf32>, tensor<3x2xf32>, tensor<3xf32>, tensor<3x2xf32>
}
