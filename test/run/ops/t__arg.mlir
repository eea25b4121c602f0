/// mut.t_ on a non-leaf argument: the same object, transposed; returned
/// (alias_of_arg 0, args_after shows the new metadata).
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %xt = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  return %xt : tensor<3x2xf32>
}
