/// tensor.cast i32 -> i1 (nonzero = true).
func.func @main(%a: tensor<5xi32>) -> tensor<5xi1> {
  %0 = tensor.cast %a : tensor<5xi32> -> tensor<5xi1>
  return %0 : tensor<5xi1>
}
