/// mut.set_ of a temporary onto a view of an argument, then a read.
func.func @main(%x: tensor<2x3xi64>) -> tensor<3xi64> {
  %t = tensor.full {value = 0} : tensor<3xi64>
  %r = view.select %x {dim = 0, index = 1} : tensor<2x3xi64> -> tensor<3xi64>
  %y = mut.set_ %t, %r : tensor<3xi64>
  %0 = tensor.add %y, %y : tensor<3xi64>
  return %0 : tensor<3xi64>
}
