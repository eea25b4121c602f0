/// tensor.ge on f16.
func.func @main(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xi1> {
  %0 = tensor.ge %a, %b : tensor<4xf16> -> tensor<4xi1>
  return %0 : tensor<4xi1>
}
