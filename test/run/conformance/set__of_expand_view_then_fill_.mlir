// golden: expect-error
// set_ in grad mode of an expanded view onto its own (distinct) elements,
// then a write through it: the write is legal, the backward reaches set_.
func.func @main(%arg0: tensor<4x3x2xf32>) -> (tensor<1x3x2xf32>, tensor<3xi64>) {
  %v0 = "view.expand"(%arg0) {shape = [4, 3, -1]} : (tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
  %v1 = "view.expand"(%v0) {shape = [2, 4, 3, 2]} : (tensor<4x3x2xf32>) -> tensor<2x4x3x2xf32>
  %v2 = "mut.set_"(%v1, %v0) : (tensor<2x4x3x2xf32>, tensor<4x3x2xf32>) -> tensor<4x3x2xf32>
  %v3 = "tensor.constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %v4 = "tensor.index_select"(%arg0, %v3) {dim = 0 : i64} : (tensor<4x3x2xf32>, tensor<1xi64>) -> tensor<1x3x2xf32>
  "mut.clamp_"(%arg0) {min = -0.72 : f64} : (tensor<4x3x2xf32>) -> ()
  "mut.fill_"(%v2) {value = 1.1 : f64} : (tensor<4x3x2xf32>) -> ()
  %v5 = "tensor.constant"() {value = dense<[0, 1, 2]> : tensor<3xi64>} : () -> tensor<3xi64>
  %v6 = "tensor.index_select"(%v4, %v5) {dim = -2 : i64} : (tensor<1x3x2xf32>, tensor<3xi64>) -> tensor<1x3x2xf32>
  return %v6, %v5 : tensor<1x3x2xf32>, tensor<3xi64>
}
