/// Two overlapping views of one storage (no ._base), one mutated: one
/// synthetic base argument; the other input sees the write.
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = tensor.full {value = 1.0} : tensor<f32>
  mut.add_ %a, %one : tensor<4xf32>, tensor<f32>
  %two = tensor.full {value = 2.0} : tensor<f32>
  %0 = tensor.mul %a, %two : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = tensor.mul %b, %two : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
