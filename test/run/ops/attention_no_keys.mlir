/// tensor.attention with no key: every row attends to nothing (zeros; a log-sum-exp of -inf).
func.func @main(%q: tensor<1x2x3xf32>, %k: tensor<1x0x3xf32>, %v: tensor<1x0x4xf32>) -> (tensor<1x2x4xf32>, tensor<1x2xf32>) {
  %0:2 = tensor.attention %q, %k, %v : tensor<1x2x3xf32>, tensor<1x0x3xf32>, tensor<1x0x4xf32> -> (tensor<1x2x4xf32>, tensor<1x2xf32>)
  return %0#0, %0#1 : tensor<1x2x4xf32>, tensor<1x2xf32>
}
