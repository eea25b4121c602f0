// z.set_(x) then x.set_(y): z takes the storage x held at the call, not
// the one x holds after its own set_.
func.func @main(%arg0: tensor<3x2xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>) -> (tensor<3x1x2xf32>) {
  %v0 = "mut.set_"(%arg2, %arg0) {aot.no_grad} : (tensor<3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %v1 = "mut.set_"(%arg0, %arg1) {aot.no_grad} : (tensor<3x2xf32>, tensor<3xf32>) -> tensor<3xf32>
  %v2 = "mut.unsqueeze_"(%v0) {dim = 1 : i64} : (tensor<3x2xf32>) -> tensor<3x1x2xf32>
  "mut.zero_"(%v1) : (tensor<3xf32>) -> ()
  return %v2 : tensor<3x1x2xf32>
}
