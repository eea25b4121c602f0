/// view.expand of a 0-d f64 tensor to 2x2.
func.func @main(%a: tensor<f64>) -> tensor<2x2xf64> {
  %0 = view.expand %a {shape = [2, 2]} : tensor<f64> -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
