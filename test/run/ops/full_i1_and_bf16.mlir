/// tensor.full of bool (value 1 = true) and bf16 tensors.
func.func @main() -> (tensor<2xi1>, tensor<2x2xbf16>) {
  %0 = tensor.full {value = 1.0} : tensor<2xi1>
  %1 = tensor.full {value = -2.5 : f32} : tensor<2x2xbf16>
  return %0, %1 : tensor<2xi1>, tensor<2x2xbf16>
}
