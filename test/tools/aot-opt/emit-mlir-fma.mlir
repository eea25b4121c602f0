// REQUIRES: mlir, mlir-opt
// RUN: aot-opt %s --pass-pipeline='builtin.module(aot-inference)' --emit=mlir | FileCheck %s
// RUN: aot-opt %s --pass-pipeline='builtin.module(aot-inference)' --emit=mlir | %mlir-opt | FileCheck %s --check-prefix=UPSTREAM

// A fused multiply-add (PyTorch's `add` with `alpha`, `addcmul`, `lerp`)
// exports as `math.fma`, rounded once as the native backends compute it;
// bf16 operands are widened to f32 around it.

// CHECK-LABEL: func.func @main
// CHECK: linalg.generic
// CHECK: math.fma {{.*}} : f32
// CHECK: linalg.generic
// CHECK: arith.extf
// CHECK: math.fma {{.*}} : f32
// CHECK: arith.truncf
// UPSTREAM: func.func @main
// UPSTREAM: math.fma
func.func @main(%x: tensor<4x5xf32>, %s: tensor<f32>, %y: tensor<4x5xf32>, %h: tensor<8xbf16>) -> (tensor<4x5xf32>, tensor<8xbf16>) {
  %0 = tensor.fma %x, %s, %y : tensor<4x5xf32>, tensor<f32>, tensor<4x5xf32> -> tensor<4x5xf32>
  %1 = tensor.fma %h, %h, %h : tensor<8xbf16>
  return %0, %1 : tensor<4x5xf32>, tensor<8xbf16>
}
