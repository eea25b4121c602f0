/// Duplicate i64 args, mutated through the second name.
func.func @main(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  mut.mul_ %b, %b : tensor<3xi64>
  %0 = tensor.add %a, %b : tensor<3xi64>
  return %0 : tensor<3xi64>
}
