/// Views and mutations written in the generic form: a multi-result
/// "view.unbind", a result-less "mut.copy_" and a metadata "mut.t_"; the
/// arguments have attribute dictionaries, which the executor ignores.
func.func @main(%x: tensor<2x2xf32> {aot.non_leaf, aot.requires_grad}, %w: tensor<2x2xf32> {aot.requires_grad}, %y: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>) {
  %u:2 = "view.unbind"(%w) {dim = 1 : i64} : (tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %s = "tensor.mul"(%u#1, %y) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = "view.select"(%x) {dim = 0 : i64, index = 0 : i64} : (tensor<2x2xf32>) -> tensor<2xf32>
  "mut.copy_"(%r, %s) : (tensor<2xf32>, tensor<2xf32>) -> ()
  %t = "mut.t_"(%x) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  "func.return"(%t, %s) : (tensor<2x2xf32>, tensor<2xf32>) -> ()
}
