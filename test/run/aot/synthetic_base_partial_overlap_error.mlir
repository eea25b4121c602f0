// golden: expect-error
/// b += a where a and b partially overlap: PyTorch refuses the in-place op
/// (some elements of the input and the written-to tensor share memory);
/// so do the interpreter and functionalize.
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  mut.add_ %b, %a : tensor<3xf32>
  return %b : tensor<3xf32>
}
