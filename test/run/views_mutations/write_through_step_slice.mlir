/// x[::2].copy_(src): a strided (step 2) slice written back.
func.func @main(%x: tensor<5xf32>, %src: tensor<3xf32>) -> tensor<5xf32> {
  %s = view.slice %x {dim = 0, step = 2} : tensor<5xf32> -> tensor<3xf32>
  mut.copy_ %s, %src : tensor<3xf32>
  return %x : tensor<5xf32>
}
