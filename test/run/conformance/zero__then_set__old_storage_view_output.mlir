// zero_ of a storage-view argument, then set_ of it onto an intermediate: a view
// of the old storage taken before sees the zeros (the write reaches the old storage
// before the argument moves).
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {
  %v0 = "tensor.cat"(%arg0, %arg0) {dim = -1 : i64} : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
  %v1 = "view.squeeze"(%arg0) {dim = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  "mut.zero_"(%arg0) : (tensor<4xf32>) -> ()
  %v2 = "mut.set_"(%arg0, %v0) : (tensor<4xf32>, tensor<8xf32>) -> tensor<8xf32>
  %v4 = "view.expand"(%v1) {shape = [-1]} : (tensor<4xf32>) -> tensor<4xf32>
  return %v4 : tensor<4xf32>
}
