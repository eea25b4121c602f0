// copy_ of one view of a differentiable base into another, then a write to the
// first through a detached alias: the second keeps the values from before the
// write (a returned argument is read before the epilogue writes it).
func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<4xf32>) {
  %v0 = "view.permute"(%arg0) {dims = [0]} : (tensor<4xf32>) -> tensor<4xf32>
  "mut.copy_"(%arg1, %v0) : (tensor<4xf32>, tensor<4xf32>) -> ()
  %v1 = "view.alias"(%v0) : (tensor<4xf32>) -> tensor<4xf32>
  %v4 = "view.detach"(%v0) : (tensor<4xf32>) -> tensor<4xf32>
  %v5 = "tensor.constant"() {value = dense<[0]> : tensor<1xi64>} : () -> tensor<1xi64>
  %v6 = "tensor.full"() {value = 1.78 : f64} : () -> tensor<1xf32>
  "mut.index_put_"(%v4, %v5, %v6) {accumulate = false} : (tensor<4xf32>, tensor<1xi64>, tensor<1xf32>) -> ()
  return %v1 : tensor<4xf32>
}
