/// Generic-form ops: a tensor.constant and a tensor.add written as
/// "dialect.op"(...) with their function types.
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = "tensor.constant"() {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : () -> tensor<3xf32>
  %0 = "tensor.add"(%x, %c) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  "func.return"(%0) : (tensor<3xf32>) -> ()
}
