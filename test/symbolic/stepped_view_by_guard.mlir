// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX). Every second row of a batch
// (`x[:, ::2]`, strides `8*s1` and 16) flattened with its batch dimension
// (`nn.Linear` of it): a view only where `8*s1` is `16*((s1 + 1) floordiv
// 2)`, which the guard says (Dynamo's, for an even s1). The view aliases
// the argument; its image is computed from it.
func.func @f(%x: tensor<s0xs1x8xf32>) -> (tensor<(s0*((s1 + 1) floordiv 2))x8xf32>, tensor<(s0*((s1 + 1) floordiv 2))x8xf32>) attributes {aot.guards = ["(8*s1) == (16*((s1 + 1) floordiv 2))"]} {
  %h = view.slice %x {dim = 1, start = 0, step = 2} : tensor<s0xs1x8xf32> -> tensor<s0x((s1 + 1) floordiv 2)x8xf32>
  %v = view.view %h {shape = array<i64: (s0*((s1 + 1) floordiv 2)), 8>} : tensor<s0x((s1 + 1) floordiv 2)x8xf32> -> tensor<(s0*((s1 + 1) floordiv 2))x8xf32>
  %e = tensor.exp %v : tensor<(s0*((s1 + 1) floordiv 2))x8xf32>
  return %v, %e : tensor<(s0*((s1 + 1) floordiv 2))x8xf32>, tensor<(s0*((s1 + 1) floordiv 2))x8xf32>
}
