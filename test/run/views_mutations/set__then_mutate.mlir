/// x.set_(src) then y.add_(w): the write lands in src's storage (args_after
/// of arg 1 shows it) and the output aliases arg 0, the lowest arg sharing it.
func.func @main(%x: tensor<3xf32>, %src: tensor<2x2xf32>, %w: tensor<2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %y = mut.set_ %x, %src : tensor<3xf32>, tensor<2x2xf32> -> tensor<2x2xf32>
  mut.add_ %y, %w : tensor<2x2xf32>, tensor<2xf32>
  return %y, %src : tensor<2x2xf32>, tensor<2x2xf32>
}
