// golden: expect-error
// y = x.sin() saves x; x.add_(1) then changes it: the backward that reads x
// for y's gradient finds x at version 1 where it saved version 0.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
  %x = "tensor.mul"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y = "tensor.sin"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %one = "tensor.full"() {value = 1.0 : f64} : () -> tensor<f32>
  "mut.add_"(%x, %one) : (tensor<3xf32>, tensor<f32>) -> ()
  return %y : tensor<3xf32>
}
