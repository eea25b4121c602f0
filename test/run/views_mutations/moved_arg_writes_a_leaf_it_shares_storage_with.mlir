// golden: no-fd (a write autograd records nothing for keeps the leaf's history: PyTorch's gradient is not the plain derivative finite differences compute; the compiled gradient tests compare with PyTorch's)
// An argument that only shares its storage with a leaf (no common base) is
// moved by as_strided_ onto the leaf's elements and written in place: the
// leaf's values change, its autograd history does not, so its final value is
// not in the gradient objective and only the outputs' terms reach its grad.
func.func @main(%a: tensor<4xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %m = "mut.as_strided_"(%a) {size = [2], stride = [1], offset = 1 : i64} : (tensor<4xf32>) -> tensor<2xf32>
  %u = "mut.unsqueeze_"(%m) {dim = 0 : i64} : (tensor<2xf32>) -> tensor<1x2xf32>
  "mut.neg_"(%u) : (tensor<1x2xf32>) -> ()
  %e = "tensor.exp"(%b) : (tensor<3xf32>) -> tensor<3xf32>
  return %b, %e : tensor<3xf32>, tensor<3xf32>
}
