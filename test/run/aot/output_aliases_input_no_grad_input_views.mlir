/// Views of an input that does not require grad (outputs don't require
/// grad) next to a view of one that does; an as_strided output with offset.
func.func @main(%x: tensor<4xf32>, %y: tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>) {
  %a = view.as_strided %x {size = [2], stride = [2], offset = 1} : tensor<4xf32> -> tensor<2xf32>
  %b = view.t %y : tensor<2x2xf32> -> tensor<2x2xf32>
  %c = view.slice %x {dim = 0, start = 2} : tensor<4xf32> -> tensor<2xf32>
  return %a, %b, %c : tensor<2xf32>, tensor<2x2xf32>, tensor<2xf32>
}
