// as_strided of a detached view is still detached: the base elements it reads
// get no gradient through it (only through the matmul's direct use).
func.func @main(%arg0: tensor<1x4xf32>) -> (tensor<f32>) {
  %v0:3 = "view.split"(%arg0) {dim = 1 : i64, sizes = [2, 1, 1]} : (tensor<1x4xf32>) -> (tensor<1x2xf32>, tensor<1x1xf32>, tensor<1x1xf32>)
  %v1 = "view.detach"(%v0#2) : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %v2 = "view.as_strided"(%v1) {size = [4], stride = [3], offset = 6 : i64} : (tensor<1x1xf32>) -> tensor<4xf32>
  %v3 = "tensor.cos"(%v2) : (tensor<4xf32>) -> tensor<4xf32>
  %v4 = "tensor.matmul"(%arg0, %v3) : (tensor<1x4xf32>, tensor<4xf32>) -> tensor<1xf32>
  %v5 = "view.select"(%v4) {dim = -1 : i64, index = -1 : i64} : (tensor<1xf32>) -> tensor<f32>
  return %v5 : tensor<f32>
}
