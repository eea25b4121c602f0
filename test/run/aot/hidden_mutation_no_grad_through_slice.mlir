/// Under aot.no_grad the program writes through a slice (rows 1..) of a
/// non-leaf argument; the write reaches the argument, autograd ignores it.
func.func @main(%a: tensor<3x2xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %s = view.slice %a {dim = 0, start = 1} : tensor<3x2xf32> -> tensor<2x2xf32>
  mut.fill_ %s {value = 0.25, aot.no_grad} : tensor<2x2xf32>
  %0 = tensor.mul %a, %b : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
