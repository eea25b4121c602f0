/// resize_ of an argument that views a listed storage at offset 3 growing
/// beyond it: the offset is kept, the storage grows; then written in full.
func.func @main(%x: tensor<2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = mut.resize_ %x {size = [2, 2]} : tensor<2xf32> -> tensor<2x2xf32>
  mut.copy_ %r, %y : tensor<2x2xf32>
  %0 = tensor.add %r, %y : tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
