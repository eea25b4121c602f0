// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
func.func @f(%x: tensor<s0x3xs1xs2xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %dw: tensor<4x1x3x3xf32>) -> (tensor<s0x4x(s1 - 2)x(s2 - 2)xf32>, tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>, tensor<s0x4x((s1 - 2) floordiv 2)x((s2 - 2) floordiv 2)xf32>, tensor<s0x4x((s1 - 2) floordiv 2 + 1)x((s2 - 2) floordiv 2 + 1)xf32>) attributes {aot.symbols = {s1 = array<i64: 4, 64>, s2 = array<i64: 4, 64>}} {
  %c = tensor.conv %x, %w, %b : tensor<s0x3xs1xs2xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<s0x4x(s1 - 2)x(s2 - 2)xf32>
  %r = tensor.relu %c : tensor<s0x4x(s1 - 2)x(s2 - 2)xf32>
  %d = tensor.conv %x, %w, %b {padding = [1, 1], stride = [2, 2]} : tensor<s0x3xs1xs2xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>
  %dd = tensor.conv %d, %dw, %b {padding = [1, 1], groups = 4} : tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>, tensor<4x1x3x3xf32>, tensor<4xf32> -> tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>
  %p = tensor.avg_pool %r {kernel_size = [2, 2], stride = [2, 2]} : tensor<s0x4x(s1 - 2)x(s2 - 2)xf32> -> tensor<s0x4x((s1 - 2) floordiv 2)x((s2 - 2) floordiv 2)xf32>
  %q = tensor.avg_pool %r {kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], ceil_mode, count_include_pad = false} : tensor<s0x4x(s1 - 2)x(s2 - 2)xf32> -> tensor<s0x4x((s1 - 2) floordiv 2 + 1)x((s2 - 2) floordiv 2 + 1)xf32>
  return %r, %dd, %p, %q : tensor<s0x4x(s1 - 2)x(s2 - 2)xf32>, tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>, tensor<s0x4x((s1 - 2) floordiv 2)x((s2 - 2) floordiv 2)xf32>, tensor<s0x4x((s1 - 2) floordiv 2 + 1)x((s2 - 2) floordiv 2 + 1)xf32>
}
