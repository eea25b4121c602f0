/// Diagonal views with positive and negative offsets (storage offsets 1 and
/// 4, stride 5) and a select of the transpose.
func.func @main(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<2xf32>, tensor<3xf32>) {
  %a = view.diagonal %x {offset = 1} : tensor<3x4xf32> -> tensor<3xf32>
  %b = view.diagonal %x {offset = -1} : tensor<3x4xf32> -> tensor<2xf32>
  %t = view.t %x : tensor<3x4xf32> -> tensor<4x3xf32>
  %c = view.select %t {dim = 0, index = 2} : tensor<4x3xf32> -> tensor<3xf32>
  return %a, %b, %c : tensor<3xf32>, tensor<2xf32>, tensor<3xf32>
}
