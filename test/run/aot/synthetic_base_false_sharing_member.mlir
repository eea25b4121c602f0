/// Three views of one storage: a and b overlap and a is mutated, c shares
/// the storage without overlapping either (false sharing) and is mutated
/// too: a and b become the base's members, c stays its own argument.
func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>, %c: tensor<2xf32>) -> (tensor<3xf32>, tensor<2xf32>) {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %a, %two : tensor<3xf32>, tensor<f32>
  mut.neg_ %c : tensor<2xf32>
  %0 = tensor.add %b, %b : tensor<3xf32>
  %1 = tensor.exp %c : tensor<2xf32>
  return %0, %1 : tensor<3xf32>, tensor<2xf32>
}
