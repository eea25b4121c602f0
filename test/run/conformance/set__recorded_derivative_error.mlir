// golden: expect-error
// set_ in grad mode onto a tensor that requires grad: autograd records a node
// without a derivative, and the backward through it raises.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
  %x = "tensor.full"() {value = 1.0 : f64} : () -> tensor<3xf32>
  %y = "tensor.mul"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = "mut.set_"(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %s : tensor<3xf32>
}
