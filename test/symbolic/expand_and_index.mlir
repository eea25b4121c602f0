// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
func.func @f(%idx: tensor<s0xi64>, %table: tensor<5x4xf32>, %bias: tensor<4xf32>) -> (tensor<s0x4xf32>, tensor<s0x4xf32>, tensor<s0xi64>) {
  %e = tensor.embedding %table, %idx : tensor<5x4xf32>, tensor<s0xi64> -> tensor<s0x4xf32>
  %bb = view.expand %bias {shape = array<i64: s0, 4>} : tensor<4xf32> -> tensor<s0x4xf32>
  %s = tensor.add %e, %bb : tensor<s0x4xf32>, tensor<s0x4xf32> -> tensor<s0x4xf32>
  %a = tensor.argmax %s {dim = 1} : tensor<s0x4xf32> -> tensor<s0xi64>
  return %s, %bb, %a : tensor<s0x4xf32>, tensor<s0x4xf32>, tensor<s0xi64>
}
