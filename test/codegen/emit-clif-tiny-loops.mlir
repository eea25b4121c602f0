// RUN: aot-opt %s --emit=clif | FileCheck %s

/// A loop of fewer iterations than lanes is not vectorized: its vector body
/// would never run, and emitting it cost most of the compile time of
/// programs with thousands of tiny kernels. Four iterations are. (Scalar
/// `exp` still computes on a splat of the lane polynomial: no `load.f32x4`.)
// CHECK:       ; function @tiny
// CHECK:       ; kernel
// CHECK-NOT:     load.f32x4
// CHECK:       ; function @four
// CHECK:       ; kernel
// CHECK:         load.f32x4
func.func @tiny(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = tensor.exp %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

func.func @four(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
