/// Rows longer than a GPU block's reach per warp (1100 elements, over the
/// 1024 at which the CUDA backend shares a row between a whole block's
/// threads): softmax, layer_norm and a full reduction, with gradients, so
/// the forward and the backward both reduce long rows (and one value from
/// every element) on every backend.
func.func @main(%x: tensor<2x1100xf32>, %w: tensor<1100xf32>, %b: tensor<1100xf32>) -> (tensor<2x1100xf32>, tensor<f32>) {
  %0 = tensor.softmax %x {dim = 1} : tensor<2x1100xf32>
  %1:3 = tensor.layer_norm %x, %w, %b {normalized_ndim = 1} : tensor<2x1100xf32>, tensor<1100xf32>, tensor<1100xf32> -> (tensor<2x1100xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  %2 = tensor.mul %1#0, %0 : tensor<2x1100xf32>, tensor<2x1100xf32> -> tensor<2x1100xf32>
  %3 = tensor.amax %x {dims = [0, 1]} : tensor<2x1100xf32> -> tensor<f32>
  %4 = tensor.sum %2 {dims = []} : tensor<2x1100xf32> -> tensor<f32>
  %5 = tensor.add %4, %3 : tensor<f32>, tensor<f32> -> tensor<f32>
  return %2, %5 : tensor<2x1100xf32>, tensor<f32>
}
