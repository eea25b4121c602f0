// REQUIRES: mlir, mlir-opt
// RUN: aot-opt %s --pass-pipeline='builtin.module(aot-inference)' --emit=mlir | FileCheck %s
// RUN: aot-opt %s --pass-pipeline='builtin.module(aot-inference)' --emit=mlir | %mlir-opt | FileCheck %s --check-prefix=UPSTREAM

// An elementwise chain with a broadcast, a reduction, a product, a
// transpose and an input mutation, exported to upstream MLIR and read back
// by mlir-opt-19.

// CHECK-LABEL: func.func @main(%arg0: tensor<4x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<3x5xf32>, %arg3: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<5x4xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK: linalg.reduce
// CHECK: linalg.transpose
// CHECK: linalg.matmul
// CHECK: return
// UPSTREAM: func.func @main
// UPSTREAM: linalg.matmul
func.func @main(%x: tensor<4x5xf32>, %b: tensor<5xf32>, %w: tensor<3x5xf32>, %out: tensor<4x5xf32>) -> (tensor<4xf32>, tensor<4x3xf32>, tensor<5x4xf32>) {
  %0 = tensor.add %x, %b : tensor<4x5xf32>, tensor<5xf32> -> tensor<4x5xf32>
  %1 = tensor.tanh %0 : tensor<4x5xf32>
  mut.copy_ %out, %1 : tensor<4x5xf32>, tensor<4x5xf32>
  %2 = tensor.sum %1 {dims = [1]} : tensor<4x5xf32> -> tensor<4xf32>
  %3 = tensor.linear %x, %w : tensor<4x5xf32>, tensor<3x5xf32> -> tensor<4x3xf32>
  %4 = view.t %1 : tensor<4x5xf32> -> tensor<5x4xf32>
  return %2, %3, %4 : tensor<4xf32>, tensor<4x3xf32>, tensor<5x4xf32>
}

