/// tensor.arange with fractional start and step, added to an argument.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = tensor.arange {start = 0.5, step = 0.25} : tensor<4xf32>
  %0 = tensor.add %x, %r : tensor<4xf32>
  return %0 : tensor<4xf32>
}
