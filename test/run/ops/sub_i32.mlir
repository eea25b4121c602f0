/// tensor.sub on i32.
func.func @main(%a: tensor<5xi32>, %b: tensor<5xi32>) -> tensor<5xi32> {
  %0 = tensor.sub %a, %b : tensor<5xi32>
  return %0 : tensor<5xi32>
}
