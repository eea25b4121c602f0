/// permute -> select -> slice -> in-place sub_ on the result; the
/// base argument is returned (alias_of_arg 0).
func.func @main(%x: tensor<2x3x4xf32>, %y: tensor<2xf32>) -> tensor<2x3x4xf32> {
  %p = view.permute %x {dims = [2, 0, 1]} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %s = view.select %p {dim = 2, index = 1} : tensor<4x2x3xf32> -> tensor<4x2xf32>
  %r = view.slice %s {dim = 0, start = 1, end = 4, step = 2} : tensor<4x2xf32> -> tensor<2x2xf32>
  mut.sub_ %r, %y : tensor<2x2xf32>, tensor<2xf32>
  return %x : tensor<2x3x4xf32>
}
