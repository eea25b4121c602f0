// layer_norm over an empty normalized dimension: PyTorch's statistics are
// mean 0 and rstd NaN for each (empty) row, in the interpreter and native code.
// golden: no-fd (rstd is NaN)
func.func @main(%arg0: tensor<1x4xf32>) -> (tensor<1xf64>, tensor<1xf32>) {
  %v0 = "view.diagonal"(%arg0) {offset = 1 : i64, dim1 = 1 : i64, dim2 = 0 : i64} : (tensor<1x4xf32>) -> tensor<0xf32>
  %v1 = "view.reshape"(%v0) {shape = [0]} : (tensor<0xf32>) -> tensor<0xf32>
  %v5:3 = "tensor.layer_norm"(%v0) {normalized_ndim = 1 : i64, eps = 1.0e-05 : f64} : (tensor<0xf32>) -> (tensor<0xf32>, tensor<1xf32>, tensor<1xf32>)
  %v6 = "view.alias"(%v1) {aot.no_grad} : (tensor<0xf32>) -> tensor<0xf32>
  %v7 = "tensor.cast"(%v5#2) : (tensor<1xf32>) -> tensor<1xf64>
  %v8 = "tensor.cast"(%v7) : (tensor<1xf64>) -> tensor<1xf32>
  return %v7, %v5#1 : tensor<1xf64>, tensor<1xf32>
}
