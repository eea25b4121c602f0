// Functions that each call the next twice: one call of @main would execute
// 2^41 ops. The interpreter sizes the call graph before running anything
// (linear in its size, saturating) and refuses with a located error.
// RUN: %python %S/Inputs/gen.py fanout 40 > %t.mlir
// RUN: not aot-run %t.mlir --random-inputs 3 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: 'func.call' op executing @main would run 2199023255551 ops (2199023255551 in this call to @h0), more than the limit of 100000000 (raise it with AOT_MAX_EXECUTED_OPS)

// Past 2^64 the count saturates rather than wraps.
// RUN: %python %S/Inputs/gen.py fanout 70 > %t.70.mlir
// RUN: not aot-run %t.70.mlir --random-inputs 3 2>&1 | FileCheck %s --check-prefix=SATURATED
// SATURATED: error: 'func.call' op executing @main would run more than 18446744073709551614 ops

// The count is exact: @main below runs 7 ops (neg, two calls, two ops in
// each callee). A limit of 7 runs it; 6 stops at the second call, the op
// that crosses the limit.
// RUN: env AOT_MAX_EXECUTED_OPS=7 aot-run %s --random-inputs 3 | FileCheck %s --check-prefix=OK
// RUN: env AOT_MAX_EXECUTED_OPS=6 not aot-run %s --random-inputs 3 2>&1 | FileCheck %s --check-prefix=SIX
// RUN: env AOT_MAX_EXECUTED_OPS=3 not aot-run %s --random-inputs 3 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: env AOT_MAX_EXECUTED_OPS=0 not aot-run %s --random-inputs 3 2>&1 | FileCheck %s --check-prefix=ZERO
// OK: "outputs"
// SIX: perf-call-fanout-eager.mlir:[[# @LINE + 13]]:3: error: 'func.call' op executing @main would run 7 ops (3 in this call to @two), more than the limit of 6 (raise it with AOT_MAX_EXECUTED_OPS)
// THREE: perf-call-fanout-eager.mlir:[[# @LINE + 11]]:3: error: 'func.call' op executing @main would run 7 ops (3 in this call to @two), more than the limit of 3
// ZERO: perf-call-fanout-eager.mlir:[[# @LINE + 9]]:3: error: 'tensor.neg' op executing @main would run 7 ops, more than the limit of 0

func.func private @two(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.sin %x : tensor<4xf32>
  %1 = tensor.cos %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.neg %x : tensor<4xf32>
  %1 = func.call @two(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = func.call @two(%1) : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
