// REQUIRES: graphviz
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --emit=dot | dot -Tsvg | FileCheck %s
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --pass-pipeline='builtin.module(aot-train)' --emit=dot | dot -Tsvg | FileCheck %s
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --pass-pipeline='builtin.module(aot-inference,func.func(protect-reads,lower-to-loops,fuse,collapse-loops,plan-memory))' --emit=dot | dot -Tsvg | FileCheck %s
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --pass-pipeline='builtin.module(aot-train)' --emit=dot-partition | dot -Tsvg | FileCheck %s
// RUN: aot-opt %S/Inputs/emit-dot-program.mlir --emit=dot-partition | dot -Tsvg | FileCheck %s

/// Graphviz renders every stage's picture (scripts/check-dot.py does the
/// same for the whole corpus).
// CHECK: <svg
// CHECK: </svg>
