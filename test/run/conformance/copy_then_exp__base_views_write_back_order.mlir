// copy_ of one view of a differentiable base into another, then exp_ of the
// first: the second's new value is the first's old memory, which the runtime's
// write-back must not change before copying it.
func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> (tensor<3xf32>) {
  "mut.copy_"(%arg1, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> ()
  "mut.exp_"(%arg0) : (tensor<3xf32>) -> ()
  return %arg1 : tensor<3xf32>
}
