// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
func.func @f(%x: tensor<s0x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> (tensor<s0x16xf32>, tensor<s0xf32>, tensor<(s0*4)x4xf32>) {
  %h = tensor.linear %x, %w, %b : tensor<s0x8xf32>, tensor<16x8xf32>, tensor<16xf32> -> tensor<s0x16xf32>
  %g = tensor.gelu %h : tensor<s0x16xf32>
  %s = tensor.sum %g {dims = [1]} : tensor<s0x16xf32> -> tensor<s0xf32>
  %r = view.reshape %g {shape = array<i64: -1, 4>} : tensor<s0x16xf32> -> tensor<(s0*4)x4xf32>
  return %g, %s, %r : tensor<s0x16xf32>, tensor<s0xf32>, tensor<(s0*4)x4xf32>
}
