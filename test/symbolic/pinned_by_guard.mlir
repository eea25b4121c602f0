// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX). A size a guard pins to a
// constant is that constant: the strided conv's map is 1x1 at every size
// the guard admits (PyTorch's ShapeEnv writes such a size as 1 once it
// guards on it: resnet18 first called at 32x32), so its result type says 1
// where the conv's rule gives ((s1 - 1) floordiv 16 + 1).
func.func @f(%x: tensor<s0x3xs1xs1xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<s0x4x1x1xf32>, tensor<s0x4xf32>) attributes {aot.guards = ["((s1 - 1) floordiv 16 + 1) == 1"]} {
  %c = tensor.conv %x, %w, %b {padding = [1, 1], stride = [16, 16]} : tensor<s0x3xs1xs1xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<s0x4x1x1xf32>
  %r = tensor.relu %c : tensor<s0x4x1x1xf32>
  %m = tensor.mean %r {dims = [2, 3]} : tensor<s0x4x1x1xf32> -> tensor<s0x4xf32>
  return %r, %m : tensor<s0x4x1x1xf32>, tensor<s0x4xf32>
}
