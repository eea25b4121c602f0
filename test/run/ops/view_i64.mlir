/// view.view of an i64 tensor flattening it.
func.func @main(%a: tensor<2x2xi64>) -> tensor<4xi64> {
  %0 = view.view %a {shape = [4]} : tensor<2x2xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
