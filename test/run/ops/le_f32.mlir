/// tensor.le on f32 including equal elements.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xi1> {
  %0 = tensor.le %a, %b : tensor<2x2xf32> -> tensor<2x2xi1>
  return %0 : tensor<2x2xi1>
}
