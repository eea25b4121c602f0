// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX). Pooling in ceil mode with a
// window larger than the smallest input (3 taps over s1 >= 2): PyTorch
// pools what the first window covers, so one compile serves s1 = 2 too.
func.func @f(%x: tensor<s0x2xs1xs1xf32>) -> (tensor<s0x2x((s1 floordiv 2))x((s1 floordiv 2))xf32>, tensor<s0x2x((s1 floordiv 2))x((s1 floordiv 2))xf32>) {
  %m:2 = tensor.max_pool %x {kernel_size = [3, 3], stride = [2, 2], ceil_mode} : tensor<s0x2xs1xs1xf32> -> (tensor<s0x2x((s1 floordiv 2))x((s1 floordiv 2))xf32>, tensor<s0x2x((s1 floordiv 2))x((s1 floordiv 2))xi64>)
  %a = tensor.avg_pool %x {kernel_size = [3, 3], stride = [2, 2], ceil_mode} : tensor<s0x2xs1xs1xf32> -> tensor<s0x2x((s1 floordiv 2))x((s1 floordiv 2))xf32>
  return %m#0, %a : tensor<s0x2x((s1 floordiv 2))x((s1 floordiv 2))xf32>, tensor<s0x2x((s1 floordiv 2))x((s1 floordiv 2))xf32>
}
