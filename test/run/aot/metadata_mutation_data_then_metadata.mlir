/// Data and metadata mutation of the same input: x.add_(y); x.t_();
/// x.mul_(z) with z broadcast over the transposed shape; return -x.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>, %z: tensor<2xf32>) -> tensor<3x2xf32> {
  mut.add_ %x, %y : tensor<2x3xf32>
  %t = mut.t_ %x : tensor<2x3xf32> -> tensor<3x2xf32>
  mut.mul_ %t, %z : tensor<3x2xf32>, tensor<2xf32>
  %0 = tensor.neg %t : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
