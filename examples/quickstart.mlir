// A small program with redundant work: `cse` merges the repeated product and
// `dce` removes the unused constant.
func.func @main(%x: tensor<4xf32> {aot.requires_grad}, %y: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %y : tensor<4xf32>
  %1 = tensor.mul %y, %x : tensor<4xf32>
  %unused = tensor.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %2 = tensor.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
