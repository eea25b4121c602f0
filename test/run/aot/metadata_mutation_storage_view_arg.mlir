/// transpose_ on an argument that is itself a strided view of a listed
/// storage (offset 2): the new strides/offset are relative to that storage.
func.func @main(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %t = mut.transpose_ %x {dim0 = 0, dim1 = 1} : tensor<2x3xf32> -> tensor<3x2xf32>
  %s = view.slice %t {dim = 0, start = 1} : tensor<3x2xf32> -> tensor<2x2xf32>
  mut.neg_ %s : tensor<2x2xf32>
  %0 = tensor.exp %t : tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
