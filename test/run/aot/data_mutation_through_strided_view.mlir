/// The program takes a strided view (every other column, offset 1) of its
/// argument and mutates it: the write goes through to the argument.
func.func @main(%x: tensor<3x4xf32>, %w: tensor<3x2xf32>) -> tensor<3x4xf32> {
  %v = view.slice %x {dim = 1, start = 1, step = 2} : tensor<3x4xf32> -> tensor<3x2xf32>
  mut.mul_ %v, %w : tensor<3x2xf32>
  %0 = tensor.mul %x, %x : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
