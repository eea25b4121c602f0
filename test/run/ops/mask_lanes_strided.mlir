// Comparison masks as vector lanes in native code: stored four bytes at a time,
// blended by a select of masks, gathered and scattered through stepped slices,
// with a scalar remainder (22 columns, 11 after the step).
func.func @main(%x: tensor<3x22xf32>, %y: tensor<3x22xf32>, %c: tensor<3x22xi1>, %z: tensor<3x22xi1>) -> (tensor<3x22xi1>, tensor<3x22xi1>, tensor<3x11xi1>, tensor<3x22xi1>) {
  %m = tensor.gt %x, %y : tensor<3x22xf32>, tensor<3x22xf32> -> tensor<3x22xi1>
  %n = tensor.ne %x, %x : tensor<3x22xf32>, tensor<3x22xf32> -> tensor<3x22xi1>
  %w = tensor.where %c, %m, %n : tensor<3x22xi1>, tensor<3x22xi1>, tensor<3x22xi1> -> tensor<3x22xi1>
  %s = view.slice %w {dim = 1, start = 1, end = 22, step = 2} : tensor<3x22xi1> -> tensor<3x11xi1>
  %t = tensor.lt %x, %y : tensor<3x22xf32>, tensor<3x22xf32> -> tensor<3x22xi1>
  %u = view.slice %t {dim = 1, start = 0, end = 22, step = 2} : tensor<3x22xi1> -> tensor<3x11xi1>
  %r = view.slice_scatter %z, %u {dim = 1, start = 0, end = 22, step = 2} : tensor<3x22xi1>, tensor<3x11xi1> -> tensor<3x22xi1>
  return %m, %w, %s, %r : tensor<3x22xi1>, tensor<3x22xi1>, tensor<3x11xi1>, tensor<3x22xi1>
}
