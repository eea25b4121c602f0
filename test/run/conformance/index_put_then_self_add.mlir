// index_put_ with values computed from a disjoint slice of the destination's storage is
// allowed, and add_(a, a) (an exact overlap of an elementwise op) is too.
func.func @main(%arg0: tensor<4xf32>) -> (tensor<4xf32>) {
  %c = "tensor.add"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %i = "tensor.constant"() {value = dense<[2, 3]> : tensor<2xi64>} : () -> tensor<2xi64>
  %a = "view.slice"(%c) {dim = 0 : i64, start = 0 : i64, end = 2 : i64, step = 1 : i64} : (tensor<4xf32>) -> tensor<2xf32>
  %v = "tensor.add"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "mut.index_put_"(%c, %i, %v) : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> ()
  "mut.add_"(%a, %a) : (tensor<2xf32>, tensor<2xf32>) -> ()
  return %c : tensor<4xf32>
}
