// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
//
// Views of non-contiguous symbolic layouts: the heads of a fused
// projection (a slice of the last dimension, split by a view), and
// a transpose merged back by a reshape (which copies); the last
// position (`x[:, -1]`, its index normalised to `s1 - 1`).
func.func @f(%x: tensor<s0xs1x24xf32>) -> (tensor<s0xs1x2x4xf32>, tensor<s0x4xs1x2xf32>, tensor<s1x(s0*8)xf32>, tensor<s0x24xf32>) {
  %q = view.slice %x {dim = 2, start = 8, end = 16} : tensor<s0xs1x24xf32> -> tensor<s0xs1x8xf32>
  %h = view.view %q {shape = array<i64: s0, s1, 2, 4>} : tensor<s0xs1x8xf32> -> tensor<s0xs1x2x4xf32>
  %t = view.transpose %h {dim0 = 1, dim1 = 3} : tensor<s0xs1x2x4xf32> -> tensor<s0x4x2xs1xf32>
  %u = view.transpose %t {dim0 = 2, dim1 = 3} : tensor<s0x4x2xs1xf32> -> tensor<s0x4xs1x2xf32>
  %y = tensor.mul %u, %u : tensor<s0x4xs1x2xf32>, tensor<s0x4xs1x2xf32> -> tensor<s0x4xs1x2xf32>
  %p = view.permute %q {dims = [1, 0, 2]} : tensor<s0xs1x8xf32> -> tensor<s1xs0x8xf32>
  %r = view.reshape %p {shape = array<i64: s1, -1>} : tensor<s1xs0x8xf32> -> tensor<s1x(s0*8)xf32>
  %l = view.select %x {dim = 1, index = (s1 - 1)} : tensor<s0xs1x24xf32> -> tensor<s0x24xf32>
  return %h, %y, %r, %l : tensor<s0xs1x2x4xf32>, tensor<s0x4xs1x2xf32>, tensor<s1x(s0*8)xf32>, tensor<s0x24xf32>
}
