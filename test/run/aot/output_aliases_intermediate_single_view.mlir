/// A single view of an intermediate: (x * 2).view(-1) (unsafe_view_alias:
/// no extra output; not an alias of any input).
func.func @main(%x: tensor<2x2xf32>) -> tensor<4xf32> {
  %two = tensor.full {value = 2.0} : tensor<f32>
  %t = tensor.mul %x, %two : tensor<2x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %v = view.view %t {shape = [-1]} : tensor<2x2xf32> -> tensor<4xf32>
  return %v : tensor<4xf32>
}
