/// unbind of an intermediate returned whole (multi-output views of an
/// intermediate), columns with stride 2 and offsets 0/1.
func.func @main(%x: tensor<3x2xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %t = tensor.mul %x, %x : tensor<3x2xf32>
  %r:2 = view.unbind %t {dim = 1} : tensor<3x2xf32> -> (tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}
