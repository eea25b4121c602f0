/// tensor.amin of i32 with keepdim.
func.func @main(%a: tensor<2x3xi32>) -> tensor<2x1xi32> {
  %0 = tensor.amin %a {dims = [1], keepdim} : tensor<2x3xi32> -> tensor<2x1xi32>
  return %0 : tensor<2x1xi32>
}
