// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX). An elementwise op reads a
// channel slice of a permuted, strided view whose strides eager orders one
// way at some sizes and not at others: ((s2 + 1) floordiv 2) is 1 at
// s2 = 2, where the last two strides tie (the gradient of an upsampled
// concatenation in a U-Net's backward). Its result is only read by a
// reduction, so its layout is the compiler's to choose, and the code reads
// its sizes at run time (symbolic.rs: an_intermediates_layout_is_free).
func.func @f(%a: tensor<s1xs2x16xs0xf32>) -> tensor<s0x8xf32> {
  %p = view.permute %a {dims = [3, 2, 0, 1]} : tensor<s1xs2x16xs0xf32> -> tensor<s0x16xs1xs2xf32>
  %c = view.slice %p {dim = 1, start = 0, end = 8} : tensor<s0x16xs1xs2xf32> -> tensor<s0x8xs1xs2xf32>
  %w = view.slice %c {dim = 3, start = 0, step = 2} : tensor<s0x8xs1xs2xf32> -> tensor<s0x8xs1x((s2 + 1) floordiv 2)xf32>
  %e = tensor.exp %w : tensor<s0x8xs1x((s2 + 1) floordiv 2)xf32>
  %s = tensor.sum %e {dims = [2, 3]} : tensor<s0x8xs1x((s2 + 1) floordiv 2)xf32> -> tensor<s0x8xf32>
  return %s : tensor<s0x8xf32>
}
