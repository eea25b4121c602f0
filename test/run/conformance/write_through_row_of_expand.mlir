// Writes through select of an expand that shares elements: the selected row's elements
// are distinct, so PyTorch writes them to the base (an intermediate, and an argument).
func.func @main(%arg0: tensor<1x3xf32>, %arg1: tensor<3xf32>) -> (tensor<1x3xf32>, tensor<2x3xf32>) {
  %c = "tensor.mul"(%arg0, %arg0) : (tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
  %e = "view.expand"(%c) {shape = [2, 3]} : (tensor<1x3xf32>) -> tensor<2x3xf32>
  %s = "view.select"(%e) {dim = 0 : i64, index = 1 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>
  %k = "tensor.add"(%arg1, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  "mut.mul_"(%s, %k) : (tensor<3xf32>, tensor<3xf32>) -> ()
  %a = "view.expand"(%arg1) {shape = [2, 3]} : (tensor<3xf32>) -> tensor<2x3xf32>
  %r = "view.select"(%a) {dim = 0 : i64, index = 0 : i64} : (tensor<2x3xf32>) -> tensor<3xf32>
  "mut.exp_"(%r) : (tensor<3xf32>) -> ()
  %o = "tensor.mul"(%e, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %c, %o : tensor<1x3xf32>, tensor<2x3xf32>
}
