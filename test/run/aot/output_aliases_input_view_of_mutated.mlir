/// Views of a mutated input (a.add_(b); return a.t(), a.select(1, 2)): they
/// must show the updated values and alias the caller's tensor.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2xf32>) {
  mut.add_ %a, %b : tensor<2x3xf32>
  %t = view.t %a : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.select %a {dim = 1, index = 2} : tensor<2x3xf32> -> tensor<2xf32>
  return %t, %s : tensor<3x2xf32>, tensor<2xf32>
}
