/// resize_ grows a non-grad argument (new storage), then copy_ fills it
/// entirely from a requires-grad source.
func.func @main(%x: tensor<2xf32>, %src: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %y = mut.resize_ %x {size = [2, 2]} : tensor<2xf32> -> tensor<2x2xf32>
  mut.copy_ %y, %src : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
