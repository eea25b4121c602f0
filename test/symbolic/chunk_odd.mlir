// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX). `chunk(2, dim=1)` of an odd or
// even length: a split into `(s1 + 1) floordiv 2` and the rest, symbolic
// pieces that add up to the dimension for every s1; the second piece gates
// the first's head (a GLU over an odd length).
func.func @f(%x: tensor<s0xs1xf32>) -> (tensor<s0x((s1 + 1) floordiv 2)xf32>, tensor<s0x(s1 - ((s1 + 1) floordiv 2))xf32>) {
  %p:2 = view.split %x {dim = 1, sizes = array<i64: ((s1 + 1) floordiv 2), (s1 - ((s1 + 1) floordiv 2))>} : tensor<s0xs1xf32> -> (tensor<s0x((s1 + 1) floordiv 2)xf32>, tensor<s0x(s1 - ((s1 + 1) floordiv 2))xf32>)
  %a = view.slice %p#0 {dim = 1, start = 0, end = (s1 - ((s1 + 1) floordiv 2))} : tensor<s0x((s1 + 1) floordiv 2)xf32> -> tensor<s0x(s1 - ((s1 + 1) floordiv 2))xf32>
  %s = tensor.sigmoid %p#1 : tensor<s0x(s1 - ((s1 + 1) floordiv 2))xf32>
  %g = tensor.mul %a, %s : tensor<s0x(s1 - ((s1 + 1) floordiv 2))xf32>, tensor<s0x(s1 - ((s1 + 1) floordiv 2))xf32> -> tensor<s0x(s1 - ((s1 + 1) floordiv 2))xf32>
  return %p#0, %g : tensor<s0x((s1 + 1) floordiv 2)xf32>, tensor<s0x(s1 - ((s1 + 1) floordiv 2))xf32>
}
