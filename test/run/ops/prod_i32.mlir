/// tensor.prod of i32 over every element: an i64 result, wrapping as PyTorch's.
func.func @main(%a: tensor<2x3xi32>) -> tensor<i64> {
  %0 = tensor.prod %a : tensor<2x3xi32> -> tensor<i64>
  return %0 : tensor<i64>
}
