// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
func.func @f(%x: tensor<s0xf32>) -> (tensor<(s0 floordiv 4)x4xf32>, tensor<4x(s0 floordiv 4)xf32>) attributes {aot.guards = ["(s0 mod 4) == 0"]} {
  %r = view.reshape %x {shape = array<i64: -1, 4>} : tensor<s0xf32> -> tensor<(s0 floordiv 4)x4xf32>
  %t = view.transpose %r {dim0 = 0, dim1 = 1} : tensor<(s0 floordiv 4)x4xf32> -> tensor<4x(s0 floordiv 4)xf32>
  %e = tensor.exp %t : tensor<4x(s0 floordiv 4)xf32>
  return %r, %e : tensor<(s0 floordiv 4)x4xf32>, tensor<4x(s0 floordiv 4)xf32>
}
