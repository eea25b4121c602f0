// A leaf whose layout reaches one storage element twice (strides [2, 2]),
// returned as is: PyTorch's gradient is per element (ones), not summed per
// memory location.
func.func @main(%arg0: tensor<3x2xf32>) -> (tensor<3x2xf32>) {
  return %arg0 : tensor<3x2xf32>
}
