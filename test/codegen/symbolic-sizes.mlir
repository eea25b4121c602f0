// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(protect-reads,lower-to-loops,fuse,collapse-loops,plan-memory))' | FileCheck %s
// RUN: env AOT_LANES8=0 aot-opt %s --emit=clif | FileCheck %s --check-prefix=CLIF

/// The code generator's pipeline over symbolic sizes. `lower-to-loops`
/// lowers the elementwise ops with symbolic bounds and strides; `fuse`
/// inlines each producer into its reader where the reader's view maps to
/// the producer's indices without arithmetic (the buffer itself here), so
/// the three ops run as one kernel and the temporaries go; `collapse-loops`
/// keeps the two loops (b's broadcast row has stride 0 across the rows,
/// not contiguous with them), and `plan-memory` has no
/// temporary left to give a lifetime (the result is its own allocation,
/// made per call at the call's sizes).
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[X:.*]]: memref<s0xs1xf32>, %[[B:.*]]: memref<s1xf32>) -> memref<s0xs1xf32>
// CHECK:         %[[BV:.*]] = loop.view %[[B]] : memref<s1xf32> -> memref<s0xs1xf32, strided<[0, 1], offset: 0>>
// CHECK:         %[[O:.*]] = loop.alloc : memref<s0xs1xf32>
// CHECK-NOT:     loop.alloc
// CHECK:         loop.kernel "mul_2" (%[[A0:.*]] = %[[X]] : memref<s0xs1xf32>, %[[A1:.*]] = %[[O]] : memref<s0xs1xf32>, %[[A2:.*]] = %[[BV]] : memref<s0xs1xf32, strided<[0, 1], offset: 0>>)
// CHECK:           loop.for %[[I:.*]] = 0 to s0 parallel {
// CHECK:             loop.for %[[J:.*]] = 0 to s1 {
// CHECK:               %[[XV:.*]] = loop.load %[[A0]][%[[I]], %[[J]]]
// CHECK:               %[[BB:.*]] = loop.load %[[A2]][%[[I]], %[[J]]]
// CHECK:               %[[S:.*]] = loop.add %[[XV]], %[[BB]] : f32
// CHECK:               %[[E:.*]] = loop.exp %[[S]] : f32
// CHECK:               %[[M:.*]] = loop.mul %[[E]], %[[XV]] : f32
// CHECK:               loop.store %[[M]], %[[A1]][%[[I]], %[[J]]]
// CHECK-NOT:     loop.kernel
// CHECK:         return %[[O]] : memref<s0xs1xf32>

/// Cranelift compiles the kernel once: after its three operands (x, the
/// result and the broadcast b, at 0, 8 and 16), the table of base
/// pointers holds the size table's address (at 24); the kernel loads the
/// sizes it reads from it (s1, the inner loop's bound and x's row stride,
/// then s0, the outer bound) and loops to them, the address of x's
/// element is i·s1 + j, and the inner loop runs four lanes at a time
/// while four iterations remain (its stride is 1 whatever the sizes),
/// then one at a time to s1.
// CLIF-LABEL: ; kernel mul_2
// CLIF:       block0(v0: i64, v1: i64, v2: i64):
// CLIF:         [[TABLE:v[0-9]+]] = load.i64 notrap readonly can_move v0+24
// CLIF-NEXT:    [[S1:v[0-9]+]] = load.i64 notrap readonly can_move [[TABLE]]
// CLIF-NEXT:    [[S0:v[0-9]+]] = load.i64 notrap readonly can_move [[TABLE]]+8
// CLIF:         smin v2, [[S0]]
// CLIF:         imul.i64 v{{[0-9]+}}, [[S1]]
// CLIF:         load.f32x4
// CLIF:         icmp sge v{{[0-9]+}}, [[S1]]
// CLIF-NOT:   ; kernel
func.func @main(%x: tensor<s0xs1xf32>, %b: tensor<s1xf32>) -> tensor<s0xs1xf32> {
  %0 = tensor.add %x, %b : tensor<s0xs1xf32>, tensor<s1xf32> -> tensor<s0xs1xf32>
  %1 = tensor.exp %0 : tensor<s0xs1xf32>
  %2 = tensor.mul %1, %x : tensor<s0xs1xf32>, tensor<s0xs1xf32> -> tensor<s0xs1xf32>
  return %2 : tensor<s0xs1xf32>
}
