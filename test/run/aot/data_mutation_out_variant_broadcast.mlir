/// An out=-style write of a smaller result: b.copy_(a.sum(0)) broadcasts the
/// 3-vector over b's rows; the returned value is computed from b afterwards.
func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = tensor.sum %a {dims = [0]} : tensor<2x3xf32> -> tensor<3xf32>
  mut.copy_ %b, %s : tensor<2x3xf32>, tensor<3xf32>
  %0 = tensor.mul %b, %a : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
