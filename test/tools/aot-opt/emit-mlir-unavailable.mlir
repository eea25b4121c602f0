// UNSUPPORTED: mlir
// RUN: not aot-opt %s --emit=mlir 2>&1 | FileCheck %s

// Without the cargo feature `mlir`, the export says which feature it needs.

// CHECK: --emit=mlir needs the MLIR backend, which this build of aot-opt lacks (build it with the cargo feature `mlir`)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
