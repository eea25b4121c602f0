// golden: no-fd (finite differences perturb a memory location, not PyTorch's split among positions)
// An output that is an as_strided view of a self-overlapping leaf: its
// gradient is split among the positions holding each element.
func.func @main(%arg0: tensor<3x2xf32>, %arg1: tensor<4x2xf32>, %arg2: tensor<1xf32>) -> (tensor<f32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %v0 = "view.expand"(%arg2) {shape = [2, -1]} : (tensor<1xf32>) -> tensor<2x1xf32>
  %v1 = "view.as_strided"(%arg1) {size = [2, 1], stride = [1, 2], offset = 2 : i64} : (tensor<4x2xf32>) -> tensor<2x1xf32>
  %v2 = "tensor.full"() {value = 1.88 : f64} : () -> tensor<f32>
  "mut.copy_"(%arg0, %v2) : (tensor<3x2xf32>, tensor<f32>) -> ()
  "mut.copy_"(%arg2, %v2) : (tensor<1xf32>, tensor<f32>) -> ()
  return %v2, %v1, %v0 : tensor<f32>, tensor<2x1xf32>, tensor<2x1xf32>
}
