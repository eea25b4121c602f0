/// tensor.hardswish and tensor.hardsigmoid on f32, just beside their kinks
/// (-3, 3: the eager check's finite differences cannot take a kink; the
/// Python tests take the kinks themselves): PyTorch's values and its own
/// backward formulas (g·(x/3 + 1/2) inside, g from 3 up; g·(1/6)).
func.func @main(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = tensor.hardswish %a : tensor<8xf32>
  %1 = tensor.hardsigmoid %a : tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
