/// mut.copy_ into a non-leaf argument from a source that requires grad; the
/// argument's new value is returned (alias_of_arg 0). Autograd sees the mutation,
/// so its final value enters the objective too.
func.func @main(%dst: tensor<2x3xf32>, %src: tensor<2x3xf32>) -> tensor<2x3xf32> {
  mut.copy_ %dst, %src : tensor<2x3xf32>
  return %dst : tensor<2x3xf32>
}
