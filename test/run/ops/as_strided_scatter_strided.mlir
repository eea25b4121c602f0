// golden: no-grad-check (PyTorch 2.15's as_strided_scatter backward w.r.t. base is wrong: torch.autograd.gradcheck fails on it)
/// view.as_strided_scatter of every other element of a 1-D tensor, in f64.
func.func @main(%a: tensor<7xf64>, %b: tensor<4xf64>) -> tensor<7xf64> {
  %0 = view.as_strided_scatter %a, %b {size = [4], stride = [2]} : tensor<7xf64>, tensor<4xf64> -> tensor<7xf64>
  return %0 : tensor<7xf64>
}
