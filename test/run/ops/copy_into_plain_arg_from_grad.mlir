/// mut.copy_ of a value requiring grad into an argument that does not:
/// the argument starts requiring grad (a mutation autograd sees).
func.func @main(%dst: tensor<4xf32>, %src: tensor<4xf32>) {
  %s = tensor.mul %src, %src : tensor<4xf32>
  mut.copy_ %dst, %s : tensor<4xf32>
  return
}
