/// tensor.round and floor in f64 (ties to even, past 2^52) and f16.
func.func @main(%a: tensor<5xf64>, %h: tensor<4xf16>) -> (tensor<5xf64>, tensor<5xf64>, tensor<4xf16>, tensor<4xf16>) {
  %0 = tensor.round %a : tensor<5xf64>
  %1 = tensor.floor %a : tensor<5xf64>
  %2 = tensor.round %h : tensor<4xf16>
  %3 = tensor.ceil %h : tensor<4xf16>
  return %0, %1, %2, %3 : tensor<5xf64>, tensor<5xf64>, tensor<4xf16>, tensor<4xf16>
}
