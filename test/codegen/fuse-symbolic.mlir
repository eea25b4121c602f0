// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse))' | FileCheck %s

/// Over symbolic sizes, `fuse` inlines a producer into a reader whose view
/// of it maps to its indices without arithmetic on a size: here a row
/// (`exp` of b) broadcast over s0 rows, whose view's stride-0 dimension
/// reads nothing and whose other dimension is the producer's own. The
/// scalar constant stays a kernel of its own, as in static code (a 0-d
/// store has no loop nest to inline), read through a stride-0 view.
// CHECK-LABEL: func.func @broadcast_producer
// CHECK-NOT:     loop.alloc : memref<s1xf32>
// CHECK:         loop.kernel "full_2"
// CHECK:         loop.kernel "mul_3"
// CHECK:           loop.for %[[I:.*]] = 0 to s0 parallel {
// CHECK:             loop.for %[[J:.*]] = 0 to s1 {
// CHECK:               loop.load %{{.*}}[%[[I]], %[[J]]] : memref<s0xs1xf32>
// CHECK:               %[[B:.*]] = loop.load %{{.*}}[%[[J]]] : memref<s1xf32>
// CHECK:               loop.exp %[[B]] : f32
// CHECK:               loop.load %{{.*}}[%[[I]], %[[J]]] : memref<s0xs1xf32, strided<[0, 0], offset: 0>>
// CHECK-NOT:     loop.kernel
func.func @broadcast_producer(%x: tensor<s0xs1xf32>, %b: tensor<s1xf32>) -> tensor<s0xs1xf32> {
  %e = tensor.exp %b : tensor<s1xf32>
  %s = tensor.add %x, %e : tensor<s0xs1xf32>, tensor<s1xf32> -> tensor<s0xs1xf32>
  %c = tensor.full {value = 2.0} : tensor<f32>
  %m = tensor.mul %s, %c : tensor<s0xs1xf32>, tensor<f32> -> tensor<s0xs1xf32>
  return %m : tensor<s0xs1xf32>
}
