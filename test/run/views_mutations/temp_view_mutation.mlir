/// A mutation of a temporary through its view; the temporary is returned.
func.func @main(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  %t = tensor.mul %x, %x : tensor<4xf32>
  %v = view.view %t {shape = [2, 2]} : tensor<4xf32> -> tensor<2x2xf32>
  %c = view.select %v {dim = 1, index = 0} : tensor<2x2xf32> -> tensor<2xf32>
  mut.exp_ %c : tensor<2xf32>
  return %v : tensor<2x2xf32>
}
