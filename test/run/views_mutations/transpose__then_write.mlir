/// x.transpose_(0, 1) then x.add_(b) with b broadcast over the new shape.
func.func @main(%x: tensor<2x3xf32>, %b: tensor<2xf32>) -> tensor<3x2xf32> {
  %u = mut.transpose_ %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  mut.add_ %u, %b : tensor<3x2xf32>, tensor<2xf32>
  return %u : tensor<3x2xf32>
}
