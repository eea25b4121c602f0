/// resize_ grows a 3-element input to 2x3 (a bigger storage); every element
/// is then written (fill_, then row 1 copied from y) before it is read.
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = mut.resize_ %x {size = [2, 3]} : tensor<3xf32> -> tensor<2x3xf32>
  mut.fill_ %r {value = 0.5} : tensor<2x3xf32>
  %row = view.select %r {dim = 0, index = 1} : tensor<2x3xf32> -> tensor<3xf32>
  mut.copy_ %row, %y : tensor<3xf32>
  %0 = tensor.mul %r, %y : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
