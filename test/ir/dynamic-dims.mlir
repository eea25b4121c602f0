// `?` dims parse (the syntax is reserved for symbolic shapes) but no pass,
// interpreter or backend handles them, so a value with one is a verifier
// error rather than a crash in lowering.

// RUN: not aot-opt %s --split-input-file 2>&1 | FileCheck %s
// RUN: not aot-opt %s --split-input-file --pass-pipeline='builtin.module(aot-train)' --emit=asm 2>&1 | FileCheck %s
// RUN: not aot-run %s --random-inputs 1 --mode compiled --backend cranelift 2>&1 | FileCheck %s

// CHECK: dynamic-dims.mlir:[[# @LINE + 1]]:1: error: 'func.func' op argument #0 of block #0 in region #0: invalid type 'tensor<?xf32>': dynamic dimensions are reserved for symbolic shapes and not supported
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.neg %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @result(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: dynamic-dims.mlir:[[# @LINE + 1]]:3: error: 'loop.alloc' op result #0: invalid type 'memref<2x?xf32>': dynamic dimensions are reserved for symbolic shapes and not supported
  %0 = loop.alloc : memref<2x?xf32>
  return %x : tensor<4xf32>
}
