/// test_set__and_data_mutation_good-style: with no_grad: a.set_(b) swaps a
/// (a leaf that requires grad, as a parameter would be) onto b's storage;
/// a * b is then b * b, and args_after[0] shows b's values.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %s = mut.set_ %a, %b {aot.no_grad} : tensor<2x2xf32>
  %0 = tensor.mul %s, %b : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
