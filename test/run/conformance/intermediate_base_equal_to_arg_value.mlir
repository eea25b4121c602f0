// golden: expect-error
// An intermediate base that copy_ made equal to an argument: the interpreter
// returns the argument's own buffer, and the outputs regenerated from it must
// not alias the argument (tests/differential.rs; PyTorch's backward raises,
// a saved value changed).
func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<1xf32>) {
  %v3:3 = "tensor.layer_norm"(%arg0) {normalized_ndim = 1 : i64, eps = 1.0e-05 : f64} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<1xf32>, tensor<1xf32>)
  %v4 = "tensor.mul"(%arg1, %v3#1) : (tensor<2xf32>, tensor<1xf32>) -> tensor<2xf32>
  %v5 = "view.expand"(%v3#1) {shape = [-1], aot.no_grad} : (tensor<1xf32>) -> tensor<1xf32>
  %v6 = "view.squeeze"(%v4) {dim = 0 : i64} : (tensor<2xf32>) -> tensor<2xf32>
  %v7 = "tensor.log_softmax"(%v3#2) {dim = 0 : i64} : (tensor<1xf32>) -> tensor<1xf32>
  "mut.copy_"(%v3#2, %v7) : (tensor<1xf32>, tensor<1xf32>) -> ()
  "mut.copy_"(%v6, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> ()
  %v8 = "view.reshape"(%v3#0) {shape = [2], aot.no_grad} : (tensor<2xf32>) -> tensor<2xf32>
  "mut.add_"(%v3#1, %v3#2) : (tensor<1xf32>, tensor<1xf32>) -> ()
  %v9 = "view.expand"(%v4) {shape = [3, -1]} : (tensor<2xf32>) -> tensor<3x2xf32>
  "mut.add_"(%v3#2, %v5) {aot.no_grad} : (tensor<1xf32>, tensor<1xf32>) -> ()
  %v10 = "tensor.clone"(%v6) : (tensor<2xf32>) -> tensor<2xf32>
  return %v9, %v6, %v5 : tensor<3x2xf32>, tensor<2xf32>, tensor<1xf32>
}
