/// tensor.floor_divide: Python's // on integers (rounds toward negative
/// infinity, broadcasting; i8 wraps as PyTorch's does).
func.func @main(%a: tensor<2x4xi64>, %b: tensor<4xi64>, %c: tensor<3xi8>, %d: tensor<3xi8>, %e: tensor<3xi32>, %f: tensor<i32>) -> (tensor<2x4xi64>, tensor<3xi8>, tensor<3xi32>) {
  %0 = tensor.floor_divide %a, %b : tensor<2x4xi64>, tensor<4xi64> -> tensor<2x4xi64>
  %1 = tensor.floor_divide %c, %d : tensor<3xi8>, tensor<3xi8> -> tensor<3xi8>
  %2 = tensor.floor_divide %e, %f : tensor<3xi32>, tensor<i32> -> tensor<3xi32>
  return %0, %1, %2 : tensor<2x4xi64>, tensor<3xi8>, tensor<3xi32>
}
