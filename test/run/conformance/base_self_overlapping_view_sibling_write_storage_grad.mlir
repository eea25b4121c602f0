// A differentiable base with a self-overlapping view argument while another view is
// divided in place: the base's gradient counts the shared element per position of
// the view (2), not once per position of every regenerated alias.
func.func @main(%arg0: tensor<3x4xf32>, %arg1: tensor<1xf32>) -> (tensor<1x1xf32>) {
  %v0 = "view.view"(%arg1) {shape = [1, 1, 1]} : (tensor<1xf32>) -> tensor<1x1x1xf32>
  %v1 = "tensor.full"() {value = 1.68 : f64} : () -> tensor<1x1xf32>
  "mut.div_"(%v0, %v1) : (tensor<1x1x1xf32>, tensor<1x1xf32>) -> ()
  return %v1 : tensor<1x1xf32>
}
