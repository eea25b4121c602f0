/// The mutated input is returned itself and through a view taken before the
/// mutation (the view sees the new values).
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %v = view.view %a {shape = [2, 2]} : tensor<4xf32> -> tensor<2x2xf32>
  mut.mul_ %a, %b : tensor<4xf32>
  return %a, %v : tensor<4xf32>, tensor<2x2xf32>
}
