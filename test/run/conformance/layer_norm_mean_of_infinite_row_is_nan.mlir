// golden: no-fd (a division by zero makes inf, where finite differences are undefined)
// layer_norm of a row holding inf: PyTorch's mean is NaN (as its variance is), not
// inf.
func.func @main(%arg0: tensor<f32>, %arg1: tensor<3x2xf32>) -> (tensor<1xf32>) {
  %v0 = "view.detach"(%arg0) : (tensor<f32>) -> tensor<f32>
  %v2 = "view.squeeze"(%v0) : (tensor<f32>) -> tensor<f32>
  %v3 = "mut.as_strided_"(%arg0) {size = [1], stride = [1], offset = 0 : i64} : (tensor<f32>) -> tensor<1xf32>
  %v4 = "view.diagonal"(%arg1) {offset = 0 : i64, dim1 = -2 : i64, dim2 = -1 : i64} : (tensor<3x2xf32>) -> tensor<2xf32>
  "mut.sub_"(%v0, %v2) : (tensor<f32>, tensor<f32>) -> ()
  %v5 = "view.detach"(%v4) : (tensor<2xf32>) -> tensor<2xf32>
  "mut.div_"(%v5, %v3) : (tensor<2xf32>, tensor<1xf32>) -> ()
  %v6 = "tensor.amax"(%v5) {dims = [0], keepdim} : (tensor<2xf32>) -> tensor<1xf32>
  %v7 = "view.permute"(%v6) {dims = [0]} : (tensor<1xf32>) -> tensor<1xf32>
  %v11:3 = "tensor.layer_norm"(%v7) {normalized_ndim = 1 : i64, eps = 1.0e-05 : f64} : (tensor<1xf32>) -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>)
  return %v11#1 : tensor<1xf32>
}
