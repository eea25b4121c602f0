// RUN: not aot-opt %s --split-input-file 2>/dev/null | FileCheck %s
// RUN: not aot-opt %s --split-input-file --pass-pipeline='builtin.module(cse)' -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

/// Chunks are parsed independently and printed separated by `// -----`.
// CHECK:      func.func @a
// CHECK:      // -----
// CHECK:      func.func @a
// CHECK:      // -----
// CHECK:      func.func @c

/// An error in one chunk is reported with its line in the whole file, and
/// the other chunks still run; the exit code is non-zero.
// ERR: split-input.mlir:23:3: error: 'func.return' op has 0 operands, but enclosing function (@a) returns 1
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
