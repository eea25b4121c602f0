// The reshape of an expanded argument (strides [1, 0]) cannot be a view, so
// it is a copy that an in-place add may write in grad mode; the argument
// reaches its elements twice, and its finite-difference gradient perturbs a
// private copy, which must not turn that reshape into a view of a leaf (the
// torch fuzzer, seed 611131).
func.func @main(%arg0: tensor<3x2xf32>) -> tensor<2x3xf32> {
  %v0 = view.reshape %arg0 {shape = [2, 3]} : tensor<3x2xf32> -> tensor<2x3xf32>
  %v1 = tensor.clone %v0 : tensor<2x3xf32>
  mut.add_ %v0, %v1 : tensor<2x3xf32>, tensor<2x3xf32>
  %c = tensor.full {value = 0.5} : tensor<f32>
  %v2 = tensor.mul %v0, %c : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  return %v2 : tensor<2x3xf32>
}
