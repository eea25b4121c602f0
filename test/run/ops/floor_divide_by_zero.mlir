// golden: expect-error
/// An integer floor division by zero raises PyTorch's ZeroDivisionError.
func.func @main(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %0 = tensor.floor_divide %a, %b : tensor<3xi64>, tensor<3xi64> -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
