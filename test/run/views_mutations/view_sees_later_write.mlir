/// A view taken before a mutation sees it: v = x.view(4); x.add_(1); return v.
func.func @main(%x: tensor<2x2xf32>) -> tensor<4xf32> {
  %v = view.view %x {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  mut.add_ %x, %one : tensor<2x2xf32>, tensor<f32>
  return %v : tensor<4xf32>
}
