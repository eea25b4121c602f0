/// View outputs of an input: view to 3x2, view to 6, and expand of a row
/// (stride 0): all alias arg 0 with their own layouts and require grad.
func.func @main(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<2x2x3xf32>) {
  %a = view.view %x {shape = [3, 2]} : tensor<2x3xf32> -> tensor<3x2xf32>
  %b = view.view %x {shape = [-1]} : tensor<2x3xf32> -> tensor<6xf32>
  %u = view.unsqueeze %x {dim = 0} : tensor<2x3xf32> -> tensor<1x2x3xf32>
  %c = view.expand %u {shape = [2, -1, -1]} : tensor<1x2x3xf32> -> tensor<2x2x3xf32>
  return %a, %b, %c : tensor<3x2xf32>, tensor<6xf32>, tensor<2x2x3xf32>
}
