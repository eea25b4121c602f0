/// view.split along dim -1 into three pieces; the pieces are combined.
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x2xf32> {
  %r:3 = view.split %x {dim = -1, sizes = [2, 2, 1]} : tensor<2x5xf32> -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x1xf32>)
  %0 = tensor.mul %r#0, %r#1 : tensor<2x2xf32>
  %1 = tensor.add %0, %r#2 : tensor<2x2xf32>, tensor<2x1xf32> -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
