// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX). Sorts over lanes of a run-time
// length, both ways, and the sorted values read through their positions
// (what `sort` and `topk` translate to).
func.func @f(%x: tensor<s0xs1xf32>) -> (tensor<s0xs1xi64>, tensor<s0xs1xf32>, tensor<s0xs1xi64>) {
  %i = tensor.argsort %x {dim = 1} : tensor<s0xs1xf32> -> tensor<s0xs1xi64>
  %v = tensor.gather %x, %i {dim = 1} : tensor<s0xs1xf32>, tensor<s0xs1xi64> -> tensor<s0xs1xf32>
  %d = tensor.argsort %x {dim = 0, descending} : tensor<s0xs1xf32> -> tensor<s0xs1xi64>
  return %i, %v, %d : tensor<s0xs1xi64>, tensor<s0xs1xf32>, tensor<s0xs1xi64>
}
