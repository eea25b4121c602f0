/// Aliased inputs mutated under no_grad: the base's mutation stays in the
/// graph as one trailing copy into the base.
func.func @main(%a: tensor<2x2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %m = tensor.full {value = 0.5} : tensor<f32>
  mut.mul_ %a, %m {aot.no_grad} : tensor<2x2xf32>, tensor<f32>
  %0 = tensor.cos %b : tensor<2xf32>
  return %0 : tensor<2xf32>
}
