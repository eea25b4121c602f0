// A leaf with a stride-0 dimension times a vector: each of its elements gets
// its own gradient (eager finite differences perturb a private copy).
func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2xf32>) -> (tensor<2x2xf32>) {
  %v0 = "tensor.mul"(%arg0, %arg1) : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %v0 : tensor<2x2xf32>
}
