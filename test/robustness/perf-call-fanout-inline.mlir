// functionalize inlines every call into the public function. Functions
// that each call the next twice would inline into 2^41 ops; the call graph
// is sized first (linear, saturating), so nothing is expanded before the
// refusal, which names the call.
// RUN: %python %S/Inputs/gen.py fanout 40 > %t.mlir
// RUN: not aot-opt %t.mlir --pass-pipeline='builtin.module(aot-train)' 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not aot-run %t.mlir --random-inputs 3 --mode compiled 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: 'func.call' op inlining every call into @main would produce 2199023255551 ops (2199023255551 from this call to @h0), more than the limit of 1000000 (raise it with AOT_MAX_INLINE_OPS)

// The count is exact: inlining yields 7 ops here (neg, two calls, two ops
// per callee).
// RUN: env AOT_MAX_INLINE_OPS=7 aot-opt %s --pass-pipeline='builtin.module(func.func(functionalize))' | FileCheck %s --check-prefix=OK
// RUN: env AOT_MAX_INLINE_OPS=6 not aot-opt %s --pass-pipeline='builtin.module(func.func(functionalize))' 2>&1 | FileCheck %s --check-prefix=SIX
// OK: tensor.neg
// OK-NEXT: tensor.sin
// OK-NEXT: tensor.cos
// OK-NEXT: tensor.sin
// OK-NEXT: tensor.cos
// SIX: perf-call-fanout-inline.mlir:[[# @LINE + 11]]:3: error: 'func.call' op inlining every call into @main would produce 7 ops (3 from this call to @two), more than the limit of 6 (raise it with AOT_MAX_INLINE_OPS)

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
