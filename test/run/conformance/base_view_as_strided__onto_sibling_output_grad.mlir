// A view of a differentiable base, as_strided_ (no_grad) onto elements its sibling
// holds, returned: the tangent of each element reaches the base through the
// argument that holds it.
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<1x3xf32>) {
  %v0 = "mut.as_strided_"(%arg1) {size = [3], stride = [1], offset = 1 : i64, aot.no_grad} : (tensor<2xf32>) -> tensor<3xf32>
  %v7 = "mut.unsqueeze_"(%v0) {dim = -2 : i64} : (tensor<3xf32>) -> tensor<1x3xf32>
  return %v7 : tensor<1x3xf32>
}
