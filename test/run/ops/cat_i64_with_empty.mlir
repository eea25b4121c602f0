/// tensor.cat of i64 tensors including an empty (0x2) one.
func.func @main(%a: tensor<2x2xi64>, %b: tensor<0x2xi64>, %c: tensor<1x2xi64>) -> tensor<3x2xi64> {
  %0 = tensor.cat %a, %b, %c {dim = 0} : tensor<2x2xi64>, tensor<0x2xi64>, tensor<1x2xi64> -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}
