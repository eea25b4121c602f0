/// Arguments (a, b, a, c) with a mutated: keep_arg_mask [T, T, F, T],
/// add_dupe_map [0, 1, 0, 2]; an output view of the removed position is
/// regenerated from the kept one.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>, %a2: tensor<2x2xf32>, %c: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>) {
  mut.add_ %a, %b : tensor<2x2xf32>
  %v = view.select %a2 {dim = 1, index = 1} : tensor<2x2xf32> -> tensor<2xf32>
  %0 = tensor.mul %a2, %c : tensor<2x2xf32>
  return %0, %v : tensor<2x2xf32>, tensor<2xf32>
}
