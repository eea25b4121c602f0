/// f(x, x) with a metadata mutation through each position
/// (test_input_mutation_metadata on dupes): the object is transposed, then
/// unsqueezed; both positions see both changes (dedupe strategy 2).
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<1x3x2xf32> {
  %a1 = mut.t_ %a : tensor<2x3xf32> -> tensor<3x2xf32>
  %b1 = mut.unsqueeze_ %a1 {dim = 0} : tensor<3x2xf32> -> tensor<1x3x2xf32>
  %0 = tensor.add %b1, %b1 : tensor<1x3x2xf32>
  return %0 : tensor<1x3x2xf32>
}
