// RUN: not aot-opt %s --emit=clif 2>&1 | FileCheck %s

/// The host program of a lowered function is built only from steps the
/// runtime can run as written: a fused attention reads its operands in
/// blocks while it writes its results, so a result in an operand's buffer
/// is refused, with its location, before any code is generated.
// CHECK: host-program-invalid.mlir:[[# @LINE + 3]]:3: error: 'loop.attention' op an attention's results must have buffers of their own
func.func @main(%q: memref<1x4x8xf32>, %k: memref<1x4x8xf32>, %v: memref<1x4x8xf32>) -> memref<1x4x8xf32> {
  %l = loop.alloc : memref<1x4xf32>
  loop.attention %q, %k, %v, %q, %l {scale = 0.5} : memref<1x4x8xf32>, memref<1x4x8xf32>, memref<1x4x8xf32>, memref<1x4x8xf32>, memref<1x4xf32>
  return %q : memref<1x4x8xf32>
}
