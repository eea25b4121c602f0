// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX). A map halved by a stride-2 slice
// (rounded up), doubled by a concatenation and cropped back to its height
// (`F.interpolate` by 2 after a strided convolution, cropped to the input):
// the crop is in bounds because `2*((s1 + 1) floordiv 2)` is at least `s1`,
// a bound of a quotient against its own dividend. The view of the map with
// the halved-and-doubled area as its last size is valid because the guard
// (Dynamo's, for even sizes) equates that area with the map's, and the
// view's element count is a multiple of the guard's two sides' difference
// away from the map's.
func.func @f(%x: tensor<s0x2xs1xs2xf32>) -> (tensor<s0x2xs1xs2xf32>, tensor<s0x2x(((s1 + 1) floordiv 2)*((s2 + 1) floordiv 2)*4)xf32>) attributes {aot.guards = ["(((s1 + 1) floordiv 2)*((s2 + 1) floordiv 2)*4) == (s1*s2)"]} {
  %h = view.slice %x {dim = 2, start = 0, step = 2} : tensor<s0x2xs1xs2xf32> -> tensor<s0x2x((s1 + 1) floordiv 2)xs2xf32>
  %e = tensor.exp %h : tensor<s0x2x((s1 + 1) floordiv 2)xs2xf32>
  %up = tensor.cat %e, %h {dim = 2} : tensor<s0x2x((s1 + 1) floordiv 2)xs2xf32>, tensor<s0x2x((s1 + 1) floordiv 2)xs2xf32> -> tensor<s0x2x(((s1 + 1) floordiv 2)*2)xs2xf32>
  %crop = view.slice %up {dim = 2, start = 0, end = s1} : tensor<s0x2x(((s1 + 1) floordiv 2)*2)xs2xf32> -> tensor<s0x2xs1xs2xf32>
  %c = tensor.mul %crop, %x : tensor<s0x2xs1xs2xf32>, tensor<s0x2xs1xs2xf32> -> tensor<s0x2xs1xs2xf32>
  %v = view.view %x {shape = array<i64: s0, 2, (((s1 + 1) floordiv 2)*((s2 + 1) floordiv 2)*4)>} : tensor<s0x2xs1xs2xf32> -> tensor<s0x2x(((s1 + 1) floordiv 2)*((s2 + 1) floordiv 2)*4)xf32>
  %t = tensor.tanh %v : tensor<s0x2x(((s1 + 1) floordiv 2)*((s2 + 1) floordiv 2)*4)xf32>
  return %c, %t : tensor<s0x2xs1xs2xf32>, tensor<s0x2x(((s1 + 1) floordiv 2)*((s2 + 1) floordiv 2)*4)xf32>
}
