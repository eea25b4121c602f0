// 20,000 chained view.alias ops of an argument, through aot-train: linear
// memory in functionalize (a 1 GiB address space; the quadratic chains
// needed about 16 GiB).
// RUN: %python %S/Inputs/gen.py alias 20000 > %t.mlir
// RUN: ulimit -v 1048576
// RUN: aot-opt %t.mlir --pass-pipeline='builtin.module(aot-train)' | FileCheck %s
// RUN: aot-run %t.mlir --random-inputs 3 --mode compiled | FileCheck %s --check-prefix=EXEC

// The output is a view of input 0: regenerated from it, never copied.
// CHECK: func.func @main(
// CHECK-SAME: output_type = "alias_of_input"
// The compiled call returns a view of argument 0, as eager would.
// EXEC: "outputs": [
// EXEC-NEXT: {
// EXEC-NEXT: "alias_of_arg": 0,
