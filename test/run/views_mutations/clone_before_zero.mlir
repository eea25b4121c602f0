/// A clone keeps the old values while a view shows the write: c = x[0].clone();
/// x.zero_(); return c, x[0].
func.func @main(%x: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %v = view.select %x {dim = 0, index = 0} : tensor<2x3xf32> -> tensor<3xf32>
  %c = tensor.clone %v : tensor<3xf32>
  mut.zero_ %x : tensor<2x3xf32>
  return %c, %v : tensor<3xf32>, tensor<3xf32>
}
