/// mut.unsqueeze_ at dim -1 of an i32 argument.
func.func @main(%x: tensor<3xi32>) -> tensor<3x1xi32> {
  %y = mut.unsqueeze_ %x {dim = -1} : tensor<3xi32> -> tensor<3x1xi32>
  return %y : tensor<3x1xi32>
}
