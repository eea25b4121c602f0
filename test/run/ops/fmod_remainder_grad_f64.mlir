/// Gradients of fmod and remainder: g for a, -g·trunc(a/b) and
/// -g·floor(a/b) for b (values away from the steps).
func.func @main(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %0 = tensor.fmod %a, %b : tensor<4xf64>
  %1 = tensor.remainder %a, %b : tensor<4xf64>
  return %0, %1 : tensor<4xf64>, tensor<4xf64>
}
