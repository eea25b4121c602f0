// golden: no-fd (NaN from sqrt of a negative)
// minimum(x, NaN): PyTorch's rule zeroes the losing side only where a
// comparison is true, so with a NaN both sides get the whole gradient.
func.func @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<4x2xf32>, tensor<1xf32>) {
  %v0 = "tensor.sqrt"(%arg1) : (tensor<2xf32>) -> tensor<2xf32>
  %v4:3 = "tensor.layer_norm"(%v0) {normalized_ndim = 1 : i64, eps = 1.0e-05 : f64} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<1xf32>, tensor<1xf32>)
  "mut.neg_"(%arg0) {aot.no_grad} : (tensor<4x2xf32>) -> ()
  %v5 = "view.detach"(%v4#1) : (tensor<1xf32>) -> tensor<1xf32>
  "mut.add_"(%v5, %v4#2) {aot.no_grad} : (tensor<1xf32>, tensor<1xf32>) -> ()
  %v6 = "tensor.clone"(%v4#2) : (tensor<1xf32>) -> tensor<1xf32>
  %v7 = "tensor.minimum"(%arg0, %v5) : (tensor<4x2xf32>, tensor<1xf32>) -> tensor<4x2xf32>
  %v8 = "view.as_strided"(%v0) {size = [2], stride = [1], offset = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %v9 = "tensor.minimum"(%arg1, %v5) : (tensor<2xf32>, tensor<1xf32>) -> tensor<2xf32>
  %v10 = "view.permute"(%v8) {dims = [0]} : (tensor<2xf32>) -> tensor<2xf32>
  "mut.exp_"(%v4#0) : (tensor<2xf32>) -> ()
  return %v10, %v7, %v5 : tensor<2xf32>, tensor<4x2xf32>, tensor<1xf32>
}
