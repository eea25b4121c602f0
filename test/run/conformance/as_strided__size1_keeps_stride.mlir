// as_strided_ with a size-1 dimension keeps the given stride ([2]), also in
// native code, whose buffer types do not keep strides of size-1 dimensions.
func.func @main(%arg0: tensor<3x2xf32>) -> (tensor<1xf32>) {
  "mut.sigmoid_"(%arg0) {aot.no_grad} : (tensor<3x2xf32>) -> ()
  %v0 = "tensor.full"() {value = 1.61 : f64} : () -> tensor<f32>
  %v1 = "mut.t_"(%v0) : (tensor<f32>) -> tensor<f32>
  %v2 = "mut.as_strided_"(%arg0) {size = [1], stride = [2], offset = 3 : i64, aot.no_grad} : (tensor<3x2xf32>) -> tensor<1xf32>
  %v3 = "tensor.sigmoid"(%v1) : (tensor<f32>) -> tensor<f32>
  %v4 = "tensor.abs"(%v3) : (tensor<f32>) -> tensor<f32>
  %v5 = "tensor.full"() {value = 0.5 : f64} : () -> tensor<f32>
  %v6 = "tensor.add"(%v4, %v5) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %v7 = "tensor.div"(%v3, %v6) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %v8 = "view.unsqueeze"(%v7) {dim = -1 : i64} : (tensor<f32>) -> tensor<1xf32>
  return %v8 : tensor<1xf32>
}
