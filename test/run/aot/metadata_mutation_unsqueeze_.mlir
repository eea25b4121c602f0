/// x.unsqueeze_(1) turns the 3-vector into 3x1 (the caller sees it);
/// x * y then broadcasts to 3x4.
func.func @main(%x: tensor<3xf32>, %y: tensor<4xf32>) -> tensor<3x4xf32> {
  %u = mut.unsqueeze_ %x {dim = 1} : tensor<3xf32> -> tensor<3x1xf32>
  %0 = tensor.mul %u, %y : tensor<3x1xf32>, tensor<4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
