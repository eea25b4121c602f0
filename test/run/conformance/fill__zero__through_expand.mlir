// fill_ and zero_ through an expanded view of an argument: PyTorch allows
// them (every element gets one value, so the shared memory location does not
// care about the order), unlike element-wise in-place ops.
func.func @main(%arg0: tensor<3xf32>, %arg1: tensor<1x3xf32>) -> (tensor<3xf32>, tensor<1x3xf32>) {
  %e = "view.expand"(%arg0) {shape = [2, 3]} : (tensor<3xf32>) -> tensor<2x3xf32>
  "mut.fill_"(%e) {value = 1.5 : f64} : (tensor<2x3xf32>) -> ()
  %f = "view.expand"(%arg1) {shape = [4, 3]} : (tensor<1x3xf32>) -> tensor<4x3xf32>
  "mut.zero_"(%f) : (tensor<4x3xf32>) -> ()
  return %arg0, %arg1 : tensor<3xf32>, tensor<1x3xf32>
}
