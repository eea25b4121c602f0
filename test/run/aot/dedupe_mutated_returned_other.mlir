/// f(x, x): mutated through the first position, returned through the
/// second (dedupe strategy 2): the output is the argument itself, doubled.
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %two = tensor.full {value = 2.0} : tensor<f32>
  mut.mul_ %a, %two : tensor<4xf32>, tensor<f32>
  %0 = tensor.add %b, %b : tensor<4xf32>
  return %b, %0 : tensor<4xf32>, tensor<4xf32>
}
