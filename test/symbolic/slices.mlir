// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
func.func @f(%x: tensor<s0x6xf32>, %q: tensor<s0x12xf32>) -> (tensor<s0x2xf32>, tensor<2x6xf32>, tensor<(s0 - 1)x6xf32>, tensor<6xf32>, tensor<(s0 - 1)x6xf32>, tensor<s0x4xf32>, tensor<((s0 + 1) floordiv 2)x6xf32>, tensor<s0x6xf32>) {
  %a = view.slice %x {dim = 1, start = 1, end = 5, step = 2} : tensor<s0x6xf32> -> tensor<s0x2xf32>
  %b = view.slice %x {dim = 0, start = 0, end = 2} : tensor<s0x6xf32> -> tensor<2x6xf32>
  %c = view.slice %x {dim = 0, start = 1} : tensor<s0x6xf32> -> tensor<(s0 - 1)x6xf32>
  %d = view.select %x {dim = 0, index = -1} : tensor<s0x6xf32> -> tensor<6xf32>
  %e = view.slice %x {dim = 0, start = 0, end = -1} : tensor<s0x6xf32> -> tensor<(s0 - 1)x6xf32>
  %parts:3 = view.split %q {dim = 1, sizes = array<i64: 4, 4, 4>} : tensor<s0x12xf32> -> (tensor<s0x4xf32>, tensor<s0x4xf32>, tensor<s0x4xf32>)
  %g = view.slice %x {dim = 0, start = 0, step = 2} : tensor<s0x6xf32> -> tensor<((s0 + 1) floordiv 2)x6xf32>
  %cl = tensor.clone %x : tensor<s0x6xf32>
  %h = view.slice %cl {dim = 0, start = 1} : tensor<s0x6xf32> -> tensor<(s0 - 1)x6xf32>
  mut.mul_ %h, %h : tensor<(s0 - 1)x6xf32>, tensor<(s0 - 1)x6xf32>
  return %a, %b, %c, %d, %e, %parts#1, %g, %cl : tensor<s0x2xf32>, tensor<2x6xf32>, tensor<(s0 - 1)x6xf32>, tensor<6xf32>, tensor<(s0 - 1)x6xf32>, tensor<s0x4xf32>, tensor<((s0 + 1) floordiv 2)x6xf32>, tensor<s0x6xf32>
}
