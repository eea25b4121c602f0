// golden: expect-error
/// An in-place write into an expanded view (several elements share one
/// memory location) is an error.
func.func @main(%x: tensor<1x3xf32>, %y: tensor<2x3xf32>) -> tensor<1x3xf32> {
  %e = view.expand %x {shape = [2, 3]} : tensor<1x3xf32> -> tensor<2x3xf32>
  mut.add_ %e, %y : tensor<2x3xf32>
  return %x : tensor<1x3xf32>
}
