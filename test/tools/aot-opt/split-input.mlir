// RUN: not aot-opt %s --split-input-file 2>/dev/null | FileCheck %s
// RUN: not aot-opt %s --split-input-file --pass-pipeline='builtin.module(cse)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

/// Chunks are parsed independently and printed separated by `// -----`. A
/// chunk that fails prints nothing but keeps its place (as in mlir-opt):
/// the k-th output is the k-th chunk's.
// CHECK:      func.func @a() {
// CHECK:      {{^}}}
// CHECK-NEXT: // -----
// CHECK-NEXT: // -----
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @a(%arg0
// CHECK:      // -----
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @c

/// An error in one chunk is reported with its line in the whole file, and
/// the other chunks still run; the exit code is non-zero.
// ERR: split-input.mlir:[[# @LINE + 10]]:3: error: 'func.return' op has 0 operands, but enclosing function (@a) returns 1
// ERR-NOT: error

func.func @a() {
  return
}

// -----

func.func @a() -> tensor<2xf32> {
  return
}

// -----

func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

// -----

func.func @c() {
  return
}
