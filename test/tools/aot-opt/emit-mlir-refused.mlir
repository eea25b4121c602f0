// REQUIRES: mlir
// RUN: not aot-opt %s --pass-pipeline='builtin.module(aot-inference)' --emit=mlir 2>&1 | FileCheck %s

// An op without an upstream counterpart is a located error naming it.

// CHECK: emit-mlir-refused.mlir:[[# @LINE + 2]]:3: error: 'tensor.argmax' op 'tensor.argmax' is not exportable to upstream MLIR
func.func @argmax(%x: tensor<4xf32>) -> tensor<i64> {
  %0 = tensor.argmax %x : tensor<4xf32> -> tensor<i64>
  return %0 : tensor<i64>
}
