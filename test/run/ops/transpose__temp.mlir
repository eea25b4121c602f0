/// mut.transpose_ of a temporary, then a sum over its new dim 0. (The
/// temporary comes from neg: an op that saves its output, like exp, would make
/// backward fail, as transpose_ bumps the version counter.)
func.func @main(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %t = tensor.neg %x : tensor<2x3xf32>
  %u = mut.transpose_ %t {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %0 = tensor.sum %u {dims = [0]} : tensor<3x2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
