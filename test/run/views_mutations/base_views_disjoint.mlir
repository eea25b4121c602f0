/// Two disjoint views of one base (rows of a 2x3): only arg 1 is
/// mutated (copy_ from a grad source); arg 0 is returned.
func.func @main(%r0: tensor<3xf32>, %r1: tensor<3xf32>, %src: tensor<3xf32>) -> tensor<3xf32> {
  mut.copy_ %r1, %src : tensor<3xf32>
  %0 = tensor.exp %r0 : tensor<3xf32>
  return %0 : tensor<3xf32>
}
