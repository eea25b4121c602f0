// golden: no-grad-check (PyTorch 2.15's as_strided_scatter backward w.r.t. base is wrong: torch.autograd.gradcheck fails on it)
/// view.as_strided_scatter of a 2x2 block at offset 1 of a 3x3 tensor.
func.func @main(%a: tensor<3x3xf32>, %b: tensor<2x2xf32>) -> tensor<3x3xf32> {
  %0 = view.as_strided_scatter %a, %b {size = [2, 2], stride = [3, 1], offset = 1} : tensor<3x3xf32>, tensor<2x2xf32> -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}
