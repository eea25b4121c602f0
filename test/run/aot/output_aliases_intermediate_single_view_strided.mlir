/// A single non-contiguous view of an intermediate, (x * y)[:, 1:].t()
/// (strides [1, 3], offset 1 in PyTorch): the only alias of its base.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %t = tensor.mul %x, %y : tensor<2x3xf32>
  %s = view.slice %t {dim = 1, start = 1} : tensor<2x3xf32> -> tensor<2x2xf32>
  %v = view.t %s : tensor<2x2xf32> -> tensor<2x2xf32>
  return %v : tensor<2x2xf32>
}
