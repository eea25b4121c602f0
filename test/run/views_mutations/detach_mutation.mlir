/// A write through view.detach changes the value but not the graph:
/// y = x * x afterwards has gradient 2 * x_new (x_new = x - 1).
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = view.detach %x : tensor<4xf32>
  %one = tensor.full {value = 1.0} : tensor<f32>
  mut.sub_ %d, %one : tensor<4xf32>, tensor<f32>
  %0 = tensor.mul %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
