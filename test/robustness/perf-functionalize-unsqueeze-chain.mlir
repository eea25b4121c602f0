// 10,000 alternating unsqueeze/squeeze views of a clone, then an in-place
// multiply (by the argument) through the last one: the write travels back through every view
// (10,000 inverses), in linear memory. Compiled and eager agree.
// RUN: %python %S/Inputs/gen.py unsqueeze 10000 > %t.mlir
// RUN: ulimit -v 1048576
// RUN: aot-opt %t.mlir --pass-pipeline='builtin.module(aot-train)' | FileCheck %s
// RUN: aot-run %t.mlir --random-inputs 3 -o %t.eager.json
// RUN: aot-run %t.mlir --random-inputs 3 --mode compiled -o %t.compiled.json
// RUN: %python -c "import json,sys; a,b=[json.load(open(p)) for p in sys.argv[1:]]; sys.exit(a != b)" %t.eager.json %t.compiled.json

// CHECK: func.func @main(
// CHECK: tensor.mul
// CHECK: func.func @main_backward(
