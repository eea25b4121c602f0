// RUN: not aot-opt %s --emit=clif 2>&1 | FileCheck %s

/// Loop-level IR may carry symbolic sizes, but native code does not read
/// sizes at run time yet: a lowered function with a symbolic size is
/// refused, with its location, before any code is generated (the
/// tensor-level path compiles a symbolic function once per size instead).
// CHECK: host-program-symbolic-invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op native code with symbolic sizes is not supported yet: argument 0 has type memref<s0xf32>
func.func @main(%x: memref<s0xf32>) -> memref<s0xf32> {
  %o = loop.alloc : memref<s0xf32>
  loop.kernel "k" (%a = %x : memref<s0xf32>, %b = %o : memref<s0xf32>) {
    loop.for %i = 0 to s0 {
      %v = loop.load %a[%i] : memref<s0xf32>
      loop.store %v, %b[%i] : memref<s0xf32>
    }
  }
  return %o : memref<s0xf32>
}
