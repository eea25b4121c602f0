// Bodies are straight-line, so a cycle of calls never ends: refused up
// front by both the inliner and the interpreter, at the call closing it.
// RUN: not aot-opt %s --pass-pipeline='builtin.module(func.func(functionalize))' 2>&1 | FileCheck %s --check-prefix=REC
// RUN: not aot-run %s --random-inputs 3 2>&1 | FileCheck %s --check-prefix=INTERP
// REC: perf-call-recursion.mlir:[[# @LINE + 9]]:3: error: 'func.call' op calls @f recursively: functionalize inlines every call, and this one never ends
// INTERP: perf-call-recursion.mlir:[[# @LINE + 8]]:3: error: 'func.call' op calls @f recursively: functions have no control flow, so the call never returns

func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.sin %x : tensor<4xf32>
  %1 = func.call @g(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
