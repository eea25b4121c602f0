// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
func.func @f(%x: tensor<s0x3x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>, %e: tensor<3x8xf32>) -> (tensor<s0x3x8xf32>, tensor<1xs0x24xf32>, tensor<(s0*3 + 3)x8xf32>, tensor<s0x3xf32>, tensor<s0x3x8xf32>) {
  %ln:3 = tensor.layer_norm %x, %w, %b {normalized_ndim = 1, eps = 1.0e-05} : tensor<s0x3x8xf32>, tensor<8xf32>, tensor<8xf32> -> (tensor<s0x3x8xf32>, tensor<s0x3x1xf32>, tensor<s0x3x1xf32>)
  %f = view.reshape %x {shape = array<i64: s0, 24>} : tensor<s0x3x8xf32> -> tensor<s0x24xf32>
  %u = view.unsqueeze %f {dim = 0} : tensor<s0x24xf32> -> tensor<1xs0x24xf32>
  %x2 = view.reshape %x {shape = array<i64: -1, 8>} : tensor<s0x3x8xf32> -> tensor<(s0*3)x8xf32>
  %c = tensor.cat %x2, %e {dim = 0} : tensor<(s0*3)x8xf32>, tensor<3x8xf32> -> tensor<(s0*3 + 3)x8xf32>
  %c2 = view.reshape %c {shape = array<i64: -1, 8>} : tensor<(s0*3 + 3)x8xf32> -> tensor<(s0*3 + 3)x8xf32>
  %mean = tensor.mean %x {dims = [2]} : tensor<s0x3x8xf32> -> tensor<s0x3xf32>
  %pos = tensor.gt %x, %ln#0 : tensor<s0x3x8xf32>, tensor<s0x3x8xf32> -> tensor<s0x3x8xi1>
  %sel = tensor.where %pos, %x, %ln#0 : tensor<s0x3x8xi1>, tensor<s0x3x8xf32>, tensor<s0x3x8xf32> -> tensor<s0x3x8xf32>
  %cs = tensor.cumsum %sel {dim = 0} : tensor<s0x3x8xf32>
  return %ln#0, %u, %c2, %mean, %cs : tensor<s0x3x8xf32>, tensor<1xs0x24xf32>, tensor<(s0*3 + 3)x8xf32>, tensor<s0x3xf32>, tensor<s0x3x8xf32>
}
