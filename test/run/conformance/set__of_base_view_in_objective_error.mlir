// golden: expect-error
// set_ in grad mode of a view of a differentiable base: the base's history is the
// set_ node, every view of the base is in the objective, and backward raises.
func.func @main(%arg0: tensor<2x2xf32>) -> (tensor<f32>) {
  %v0 = "view.slice"(%arg0) {dim = 0 : i64, start = 0 : i64, end = 7 : i64, step = 2 : i64} : (tensor<2x2xf32>) -> tensor<1x2xf32>
  %v4 = "mut.set_"(%v0, %arg0) : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %v8 = "tensor.full"() {value = 0.83 : f64} : () -> tensor<f32>
  return %v8 : tensor<f32>
}
