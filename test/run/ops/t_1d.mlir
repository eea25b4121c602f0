/// view.t of a 1-D tensor is the same shape (still a view).
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = view.t %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
