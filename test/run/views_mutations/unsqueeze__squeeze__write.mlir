/// unsqueeze_ then squeeze_ on a non-grad argument, then a write through
/// a slice of it.
func.func @main(%x: tensor<4xi64>) -> tensor<4xi64> {
  %a = mut.unsqueeze_ %x {dim = 0} : tensor<4xi64> -> tensor<1x4xi64>
  %b = mut.squeeze_ %a {dim = 0} : tensor<1x4xi64> -> tensor<4xi64>
  %s = view.slice %b {dim = 0, start = 2} : tensor<4xi64> -> tensor<2xi64>
  mut.fill_ %s {value = 0} : tensor<2xi64>
  return %b : tensor<4xi64>
}
