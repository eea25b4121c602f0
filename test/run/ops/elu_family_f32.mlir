/// tensor.elu with ELU's, SELU's and CELU's (alpha 2) coefficients on
/// f32: expm1(x·c1)·c2 for x <= 0, else x·scale, the coefficients rounded
/// as PyTorch's kernel rounds them; its backward ((g·c1)·c2)·exp(x·c1).
func.func @main(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %0 = tensor.elu %a {alpha = 0.7} : tensor<8xf32>
  %1 = tensor.elu %a {alpha = 1.6732632423543772, scale = 1.0507009873554805} : tensor<8xf32>
  %2 = tensor.elu %a {alpha = 2.0, input_scale = 0.5} : tensor<8xf32>
  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
