// golden: expect-error
// as_strided_ under no_grad shrinks an intermediate; a squeeze made afterwards
// in grad mode passes a gradient of the new shape to the old history.
func.func @main(%arg0: tensor<f32>, %arg1: tensor<4xf32>) -> (tensor<f32>) {
  %v0 = "view.unsqueeze"(%arg0) {dim = -1 : i64} : (tensor<f32>) -> tensor<1xf32>
  %v1 = "tensor.div"(%v0, %arg1) : (tensor<1xf32>, tensor<4xf32>) -> tensor<4xf32>
  %v3 = "mut.as_strided_"(%v1) {size = [1], stride = [3], offset = 3 : i64, aot.no_grad} : (tensor<4xf32>) -> tensor<1xf32>
  %v6 = "view.squeeze"(%v3) : (tensor<1xf32>) -> tensor<f32>
  return %v6 : tensor<f32>
}
