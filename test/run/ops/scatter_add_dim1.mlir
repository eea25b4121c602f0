/// tensor.scatter_add along dim -1 with an index narrower than x.
func.func @main(%a: tensor<2x4xf32>, %b: tensor<2x2xi64>, %c: tensor<2x2xf32>) -> tensor<2x4xf32> {
  %0 = tensor.scatter_add %a, %b, %c {dim = -1} : tensor<2x4xf32>, tensor<2x2xi64>, tensor<2x2xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
