/// mut.zero_ on a non-leaf argument then used in arithmetic.
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  mut.zero_ %x : tensor<3xf32>
  %0 = tensor.add %x, %y : tensor<3xf32>
  return %0 : tensor<3xf32>
}
