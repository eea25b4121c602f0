/// tensor.lt on i32 with equal elements (strict).
func.func @main(%a: tensor<5xi32>, %b: tensor<5xi32>) -> tensor<5xi1> {
  %0 = tensor.lt %a, %b : tensor<5xi32> -> tensor<5xi1>
  return %0 : tensor<5xi1>
}
