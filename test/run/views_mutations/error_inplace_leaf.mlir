// golden: expect-error
/// An in-place op on a leaf that requires grad (outside no_grad) is an error.
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  mut.add_ %x, %y : tensor<3xf32>
  return %x : tensor<3xf32>
}
