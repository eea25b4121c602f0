/// tensor.max_pool whose indices nothing uses (inference): the lowering computes the window maxima alone, in vector lanes; a NaN still wins its window, a window of -inf gives -inf, over several rows of four and more.
func.func @main(%a0: tensor<1x2x4x10xf32>) -> tensor<1x2x4x8xf32> {
  %0:2 = tensor.max_pool %a0 {kernel_size = [3, 3], stride = [1, 1], padding = [1, 0]} : tensor<1x2x4x10xf32> -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xi64>)
  %1 = tensor.neg %0#0 : tensor<1x2x4x8xf32>
  return %1 : tensor<1x2x4x8xf32>
}
