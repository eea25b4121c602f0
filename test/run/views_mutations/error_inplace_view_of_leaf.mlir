// golden: expect-error
/// An in-place op through a view of a leaf that requires grad is an error.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = view.slice %x {dim = 0, start = 1, end = 3} : tensor<4xf32> -> tensor<2xf32>
  mut.zero_ %s : tensor<2xf32>
  return %x : tensor<4xf32>
}
