// RUN: aot-opt %s --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file | aot-opt --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file --print-generic | aot-opt --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops{host-kernels=false}))' | FileCheck %s --check-prefix=LOOPS
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops))' | FileCheck %s --check-prefix=FUSED
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(aot-train)' | FileCheck %s --check-prefix=JOINT

/// Causal attention with a boolean mask broadcast over the batch: on the
/// host (FUSED) one `loop.attention`, the mask a broadcast view; for a
/// device target (LOOPS) a GEMM for the scores (against the key viewed transposed,
/// no copy), one row kernel for the masked softmax (which also writes the
/// log-sum-exp) and a GEMM for the values. The backward saves the output
/// and the log-sum-exp and takes one `tensor.attention_grad`.
// CHECK-LABEL: func.func @causal
// CHECK: %[[A:.*]]:2 = tensor.attention %arg0, %arg1, %arg2, %arg3 {causal} : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<4x6xi1> -> (tensor<2x4x5xf32>, tensor<2x4xf32>)
// LOOPS-LABEL: func.func @causal
// LOOPS: loop.matmul %arg0, %{{.*}}, %{{.*}} : memref<2x4x8xf32>, memref<2x8x6xf32, strided<[48, 1, 8], offset: 0>>, memref<2x4x6xf32>
// LOOPS: loop.kernel "attention_softmax_{{[0-9]+}}" ({{.*}}memref<2x4x6xi1, strided<[0, 6, 1], offset: 0>>)
// LOOPS: loop.matmul %{{.*}}, %arg2, %{{.*}} : memref<2x4x6xf32>, memref<2x6x5xf32>, memref<2x4x5xf32>
// LOOPS-NOT: loop.kernel
// LOOPS: return
// FUSED-LABEL: func.func @causal
// FUSED: %[[M:.*]] = loop.view %arg3 : memref<4x6xi1> -> memref<2x4x6xi1, strided<[0, 6, 1], offset: 0>>
// FUSED-NOT: loop.kernel
// FUSED-NOT: loop.matmul
// FUSED: loop.attention %arg0, %arg1, %arg2, %{{.*}}, %{{.*}}, %[[M]] {causal, scale = 0.35355339059327373} : memref<2x4x8xf32>, memref<2x6x8xf32>, memref<2x6x5xf32>, memref<2x4x5xf32>, memref<2x4xf32>, memref<2x4x6xi1, strided<[0, 6, 1], offset: 0>>
// FUSED: return
// JOINT-LABEL: func.func @causal_backward
// JOINT: tensor.attention_grad {{.*}} {causal} : tensor<2x4x5xf32>, tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<2x4x5xf32>, tensor<2x4xf32>, tensor<4x6xi1> -> (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>)
func.func @causal(%q: tensor<2x4x8xf32> {aot.requires_grad}, %k: tensor<2x6x8xf32> {aot.requires_grad}, %v: tensor<2x6x5xf32> {aot.requires_grad}, %m: tensor<4x6xi1>) -> tensor<2x4x5xf32> {
  %0:2 = tensor.attention %q, %k, %v, %m {causal} : tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<4x6xi1> -> (tensor<2x4x5xf32>, tensor<2x4xf32>)
  return %0#0 : tensor<2x4x5xf32>
}

// -----

/// f16 heads are computed in f32 (the log-sum-exp is f32) and rounded once,
/// by GEMMs and a row kernel on every target.
// CHECK-LABEL: func.func @half
// CHECK: tensor.attention %arg0, %arg1, %arg2 {scale = 0.125} : tensor<1x3x16xf16> -> (tensor<1x3x16xf16>, tensor<1x3xf32>)
// LOOPS-LABEL: func.func @half
// LOOPS: loop.matmul {{.*}}memref<1x3x3xf32>
// LOOPS: loop.matmul {{.*}}memref<1x3x16xf32>
// LOOPS: memref<1x3x16xf16>
// FUSED-LABEL: func.func @half
// FUSED-NOT: loop.attention
// FUSED: loop.matmul {{.*}}memref<1x3x3xf32>
func.func @half(%q: tensor<1x3x16xf16>, %k: tensor<1x3x16xf16>, %v: tensor<1x3x16xf16>) -> tensor<1x3x16xf16> {
  %0:2 = tensor.attention %q, %k, %v {scale = 0.125} : tensor<1x3x16xf16>, tensor<1x3x16xf16>, tensor<1x3x16xf16> -> (tensor<1x3x16xf16>, tensor<1x3xf32>)
  return %0#0 : tensor<1x3x16xf16>
}

// -----

/// The gradient op written directly: the output gradient, q, k, v, the
/// saved output and log-sum-exp, the additive mask last.
// CHECK-LABEL: func.func @grad
// CHECK: %{{.*}}:3 = tensor.attention_grad %arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6 {scale = 0.5} : tensor<2x4x5xf32>, tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<2x4x5xf32>, tensor<2x4xf32>, tensor<4x6xf32> -> (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>)
// LOOPS-LABEL: func.func @grad
// LOOPS: loop.kernel "attention_probs_
// LOOPS-COUNT-2: loop.matmul
// LOOPS: loop.kernel "attention_dscores_
// LOOPS-COUNT-2: loop.matmul
// LOOPS: return
// FUSED-LABEL: func.func @grad
// FUSED: %[[M:.*]] = loop.view %arg6 : memref<4x6xf32> -> memref<2x4x6xf32, strided<[0, 6, 1], offset: 0>>
// FUSED-NOT: loop.kernel
// FUSED-NOT: loop.matmul
// FUSED: loop.attention_grad %arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %{{.*}}, %[[DK:[0-9]+]], %{{.*}}, %[[M]] {scale = 0.5} : memref<2x4x5xf32>, memref<2x4x8xf32>, memref<2x6x8xf32>, memref<2x6x5xf32>, memref<2x4x5xf32>, memref<2x4xf32>, memref<2x4x8xf32>, memref<2x6x8xf32>, memref<2x6x5xf32>, memref<2x4x6xf32, strided<[0, 6, 1], offset: 0>>
// FUSED: return %[[DK]]
func.func @grad(%g: tensor<2x4x5xf32>, %q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x5xf32>, %o: tensor<2x4x5xf32>, %l: tensor<2x4xf32>, %m: tensor<4x6xf32>) -> tensor<2x6x8xf32> {
  %0:3 = tensor.attention_grad %g, %q, %k, %v, %o, %l, %m {scale = 0.5} : tensor<2x4x5xf32>, tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>, tensor<2x4x5xf32>, tensor<2x4xf32>, tensor<4x6xf32> -> (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>)
  return %0#1 : tensor<2x6x8xf32>
}
