/// tensor.full of an f32 2x3 tensor; it does not require grad.
func.func @main() -> tensor<2x3xf32> {
  %0 = tensor.full {value = 1.5} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
