/// as_strided on an argument reads storage elements no argument covers
/// (element 2 lies between a and b): the storage is passed whole, as a
/// synthetic base, and the read sees the caller's data; b is then mutated.
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<5xf32>, tensor<2xf32>) {
  %v = view.as_strided %a {size = [5], stride = [1], offset = 0} : tensor<2xf32> -> tensor<5xf32>
  %0 = tensor.mul %v, %v : tensor<5xf32>
  mut.neg_ %b : tensor<2xf32>
  return %0, %b : tensor<5xf32>, tensor<2xf32>
}
