// REQUIRES: llvm
// RUN: aot-opt %s --emit=llvm | FileCheck %s

/// The LLVM backend compiles a symbolic function once, as Cranelift does
/// (symbolic-sizes.mlir): after the kernel's three operands (x, the result
/// and the broadcast b, at 0, 8 and 16), the table of base pointers holds
/// the size table's address (at 24). The kernel loads the sizes it reads
/// from it (s1, the inner bound and x's row stride, then s0, the outer
/// bound), as invariant loads, and clamps the caller's slice of the split
/// loop to s0; the address of x's row is i·s1. LLVM's vectorizer widens
/// the inner loop with a run-time trip count: a vector loop while lanes
/// fit, then the scalar remainder up to s1.
// CHECK-LABEL: define {{.*}} @mul_2_0(ptr {{.*}}%0, i64 %1, i64 %2)
// CHECK:         %sizes.slot = getelementptr inbounds i8, ptr %0, i64 24
// CHECK-NEXT:    %sizes = load ptr, ptr %sizes.slot
// CHECK-NEXT:    %[[S1:.*]] = load i64, ptr %sizes, align 8, !invariant.load
// CHECK-NEXT:    %[[AT:.*]] = getelementptr inbounds i8, ptr %sizes, i64 8
// CHECK-NEXT:    %[[S0:.*]] = load i64, ptr %[[AT]], align 8, !invariant.load
// CHECK:         call i64 @llvm.smin.i64(i64 %[[S0]], i64 %2)
// CHECK:         mul i64 %{{.*}}, %[[S1]]
// CHECK:         load <{{[0-9]+}} x float>
// CHECK:         fadd <{{[0-9]+}} x float>
// CHECK-NOT:   define
func.func @main(%x: tensor<s0xs1xf32>, %b: tensor<s1xf32>) -> tensor<s0xs1xf32> {
  %0 = tensor.add %x, %b : tensor<s0xs1xf32>, tensor<s1xf32> -> tensor<s0xs1xf32>
  %1 = tensor.exp %0 : tensor<s0xs1xf32>
  %2 = tensor.mul %1, %x : tensor<s0xs1xf32>, tensor<s0xs1xf32> -> tensor<s0xs1xf32>
  return %2 : tensor<s0xs1xf32>
}
