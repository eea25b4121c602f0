/// tensor.arange with the default start 0 and step 1 (f32).
func.func @main() -> tensor<5xf32> {
  %0 = tensor.arange : tensor<5xf32>
  return %0 : tensor<5xf32>
}
