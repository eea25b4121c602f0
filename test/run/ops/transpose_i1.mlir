/// view.transpose of a bool tensor.
func.func @main(%a: tensor<2x2xi1>) -> tensor<2x2xi1> {
  %0 = view.transpose %a {dim0 = 1, dim1 = 0} : tensor<2x2xi1>
  return %0 : tensor<2x2xi1>
}
