/// A duplicate argument mutated through its first name, read through
/// the second: the output aliases arg 0.
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  mut.add_ %a, %c : tensor<4xf32>
  return %b : tensor<4xf32>
}
