// golden: skip (PyTorch's CPU generator is mt19937, not Philox: gradients are checked against finite differences)

/// A training step of a transformer encoder layer: 2-head self-attention
/// (packed q/k/v projection, scaled dot product, softmax), residual and
/// layer_norm, a GELU feed-forward block, residual and layer_norm, then a
/// mean squared error loss (d_model 8, feed-forward 16, batch 2, sequence 3).
/// Dropout (p = 0.1) on the attention weights, the attention output, the
/// GELU output and the feed-forward output, as nn.TransformerEncoderLayer
/// does in training; f64 so that finite differences are exact enough.
func.func @main(%x: tensor<2x3x8xf64>, %target: tensor<2x3x8xf64>, %in_w: tensor<24x8xf64>, %in_b: tensor<24xf64>, %out_w: tensor<8x8xf64>, %out_b: tensor<8xf64>, %l1_w: tensor<16x8xf64>, %l1_b: tensor<16xf64>, %l2_w: tensor<8x16xf64>, %l2_b: tensor<8xf64>, %n1_w: tensor<8xf64>, %n1_b: tensor<8xf64>, %n2_w: tensor<8xf64>, %n2_b: tensor<8xf64>) -> tensor<f64> {
  %0 = tensor.linear %x, %in_w, %in_b : tensor<2x3x8xf64>, tensor<24x8xf64>, tensor<24xf64> -> tensor<2x3x24xf64>
  %1:3 = view.split %0 {dim = -1, sizes = [8, 8, 8]} : tensor<2x3x24xf64> -> (tensor<2x3x8xf64>, tensor<2x3x8xf64>, tensor<2x3x8xf64>)
  %2 = view.reshape %1#0 {shape = [2, 3, 2, 4]} : tensor<2x3x8xf64> -> tensor<2x3x2x4xf64>
  %3 = view.permute %2 {dims = [0, 2, 1, 3]} : tensor<2x3x2x4xf64> -> tensor<2x2x3x4xf64>
  %4 = view.reshape %1#1 {shape = [2, 3, 2, 4]} : tensor<2x3x8xf64> -> tensor<2x3x2x4xf64>
  %5 = view.permute %4 {dims = [0, 2, 1, 3]} : tensor<2x3x2x4xf64> -> tensor<2x2x3x4xf64>
  %6 = view.reshape %1#2 {shape = [2, 3, 2, 4]} : tensor<2x3x8xf64> -> tensor<2x3x2x4xf64>
  %7 = view.permute %6 {dims = [0, 2, 1, 3]} : tensor<2x3x2x4xf64> -> tensor<2x2x3x4xf64>
  %8 = view.transpose %5 {dim0 = -2, dim1 = -1} : tensor<2x2x3x4xf64> -> tensor<2x2x4x3xf64>
  %9 = tensor.matmul %3, %8 : tensor<2x2x3x4xf64>, tensor<2x2x4x3xf64> -> tensor<2x2x3x3xf64>
  %10 = tensor.constant dense<0.5> : tensor<f64>
  %11 = tensor.mul %9, %10 : tensor<2x2x3x3xf64>, tensor<f64> -> tensor<2x2x3x3xf64>
  %12 = tensor.softmax %11 {dim = -1} : tensor<2x2x3x3xf64> -> tensor<2x2x3x3xf64>
  %13:2 = rng.dropout %12 {p = 0.1} : tensor<2x2x3x3xf64> -> (tensor<2x2x3x3xf64>, tensor<2x2x3x3xi1>)
  %14 = tensor.matmul %13#0, %7 : tensor<2x2x3x3xf64>, tensor<2x2x3x4xf64> -> tensor<2x2x3x4xf64>
  %15 = view.permute %14 {dims = [0, 2, 1, 3]} : tensor<2x2x3x4xf64> -> tensor<2x3x2x4xf64>
  %16 = view.reshape %15 {shape = [2, 3, 8]} : tensor<2x3x2x4xf64> -> tensor<2x3x8xf64>
  %17 = tensor.linear %16, %out_w, %out_b : tensor<2x3x8xf64>, tensor<8x8xf64>, tensor<8xf64> -> tensor<2x3x8xf64>
  %18:2 = rng.dropout %17 {p = 0.1} : tensor<2x3x8xf64> -> (tensor<2x3x8xf64>, tensor<2x3x8xi1>)
  %19 = tensor.add %x, %18#0 : tensor<2x3x8xf64>, tensor<2x3x8xf64> -> tensor<2x3x8xf64>
  %20:3 = tensor.layer_norm %19, %n1_w, %n1_b {normalized_ndim = 1, eps = 1.0e-5} : tensor<2x3x8xf64>, tensor<8xf64>, tensor<8xf64> -> (tensor<2x3x8xf64>, tensor<2x3x1xf64>, tensor<2x3x1xf64>)
  %21 = tensor.linear %20#0, %l1_w, %l1_b : tensor<2x3x8xf64>, tensor<16x8xf64>, tensor<16xf64> -> tensor<2x3x16xf64>
  %22 = tensor.gelu %21 : tensor<2x3x16xf64> -> tensor<2x3x16xf64>
  %23:2 = rng.dropout %22 {p = 0.1} : tensor<2x3x16xf64> -> (tensor<2x3x16xf64>, tensor<2x3x16xi1>)
  %24 = tensor.linear %23#0, %l2_w, %l2_b : tensor<2x3x16xf64>, tensor<8x16xf64>, tensor<8xf64> -> tensor<2x3x8xf64>
  %25:2 = rng.dropout %24 {p = 0.1} : tensor<2x3x8xf64> -> (tensor<2x3x8xf64>, tensor<2x3x8xi1>)
  %26 = tensor.add %20#0, %25#0 : tensor<2x3x8xf64>, tensor<2x3x8xf64> -> tensor<2x3x8xf64>
  %27:3 = tensor.layer_norm %26, %n2_w, %n2_b {normalized_ndim = 1, eps = 1.0e-5} : tensor<2x3x8xf64>, tensor<8xf64>, tensor<8xf64> -> (tensor<2x3x8xf64>, tensor<2x3x1xf64>, tensor<2x3x1xf64>)
  %28 = tensor.sub %27#0, %target : tensor<2x3x8xf64>, tensor<2x3x8xf64> -> tensor<2x3x8xf64>
  %29 = tensor.mul %28, %28 : tensor<2x3x8xf64>, tensor<2x3x8xf64> -> tensor<2x3x8xf64>
  %30 = tensor.mean %29 {dims = []} : tensor<2x3x8xf64> -> tensor<f64>
  return %30 : tensor<f64>
}
