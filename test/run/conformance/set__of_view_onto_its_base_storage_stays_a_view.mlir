// A view set_ onto its own base's storage stays a view of the base: a
// later copy_ into it reaches the base's history (the base is then in the
// objective).
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>, %arg2: tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2x2xf32>, tensor<3xf32>) {
  %v0 = "view.squeeze"(%arg2) {dim = 0 : i64} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %v1 = "mut.set_"(%v0, %arg2) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %v2 = "view.transpose"(%arg0) {dim0 = 0 : i64, dim1 = -1 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  "mut.copy_"(%v1, %v2) : (tensor<2x2xf32>, tensor<2xf32>) -> ()
  return %v2, %arg2, %arg1 : tensor<2xf32>, tensor<2x2xf32>, tensor<3xf32>
}
