/// test_input_mutation_return: an out= op, torch.sin(a, out=b): the result
/// is written into the input b with copy_ and b itself is returned; b did not
/// require grad before and does afterwards.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %s = tensor.sin %a : tensor<2x2xf32>
  mut.copy_ %b, %s : tensor<2x2xf32>
  return %b : tensor<2x2xf32>
}
