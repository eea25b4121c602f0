/// An intermediate mutated in place after a view of it was taken:
/// t = x * 2; v = t.view(4); t.add_(y); return v, t.t().
func.func @main(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<4xf32>, tensor<2x2xf32>) {
  %two = tensor.full {value = 2.0} : tensor<f32>
  %t = tensor.mul %x, %two : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %v = view.view %t {shape = [4]} : tensor<2x2xf32> -> tensor<4xf32>
  mut.add_ %t, %y : tensor<2x2xf32>
  %u = view.t %t : tensor<2x2xf32> -> tensor<2x2xf32>
  return %v, %u : tensor<4xf32>, tensor<2x2xf32>
}
