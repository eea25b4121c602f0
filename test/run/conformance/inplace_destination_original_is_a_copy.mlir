// x.mul_(w) with only w requiring grad: the gradient of w needs x's value
// before the write, which PyTorch saves as a copy, so the later add_ to x is
// harmless.
func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32> {aot.requires_grad}) -> (tensor<3xf32>) {
  %x = "tensor.clone"(%arg0) : (tensor<3xf32>) -> tensor<3xf32>
  "mut.mul_"(%x, %arg1) : (tensor<3xf32>, tensor<3xf32>) -> ()
  %one = "tensor.full"() {value = 1.0 : f64} : () -> tensor<f32>
  "mut.add_"(%x, %one) : (tensor<3xf32>, tensor<f32>) -> ()
  return %x : tensor<3xf32>
}
