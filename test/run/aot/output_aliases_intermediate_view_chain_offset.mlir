/// A chain of views of an intermediate with a non-zero offset:
/// (x + y)[:, 1::2].t()[1] and the diagonal of x + y.
func.func @main(%x: tensor<3x4xf32>, %y: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %t = tensor.add %x, %y : tensor<3x4xf32>
  %s = view.slice %t {dim = 1, start = 1, step = 2} : tensor<3x4xf32> -> tensor<3x2xf32>
  %u = view.t %s : tensor<3x2xf32> -> tensor<2x3xf32>
  %r = view.select %u {dim = 0, index = 1} : tensor<2x3xf32> -> tensor<3xf32>
  %d = view.diagonal %t : tensor<3x4xf32> -> tensor<3xf32>
  return %r, %d : tensor<3xf32>, tensor<3xf32>
}
