// golden: expect-error
// x.mul_(x) saves x as the other operand, before its own write bumps x's
// version: the backward finds it changed.
func.func @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
  %x = "tensor.clone"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  "mut.mul_"(%x, %x) : (tensor<3xf32>, tensor<3xf32>) -> ()
  return %x : tensor<3xf32>
}
