// A clone followed by 10,000 chained transposes, through aot-train. Each
// view once carried its whole chain of views (about 40 bytes x n^2: over
// 4 GiB here); the chains share their prefixes now, so a 1 GiB address
// space is plenty.
// RUN: %python %S/Inputs/gen.py transpose 10000 > %t.mlir
// RUN: ulimit -v 1048576
// RUN: aot-opt %t.mlir --pass-pipeline='builtin.module(aot-train)' | FileCheck %s
// RUN: aot-opt %t.mlir --pass-pipeline='builtin.module(functionalize)' | FileCheck %s --check-prefix=FUNC

// An even number of transposes: the returned view is the clone.
// CHECK: func.func @main(
// CHECK: func.func @main_backward(

// The output's alias facts replay its 10,000 views from the clone.
// FUNC: kind = "intermediate"
// FUNC: %[[CLONE:.*]] = tensor.clone %arg0
// FUNC: return %[[CLONE]], %[[CLONE]]
