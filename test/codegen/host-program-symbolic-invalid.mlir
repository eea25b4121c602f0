// REQUIRES: llvm
// RUN: not aot-opt %s --emit=llvm 2>&1 | FileCheck %s

/// Loop-level IR may carry symbolic sizes, which Cranelift's kernels read
/// from a size table at run time (symbolic-sizes.mlir); the LLVM backend
/// does not read sizes at run time yet, and refuses a lowered function
/// with a symbolic size, with its location, before any code is generated
/// (the tensor-level path compiles such a function once per size there).
// CHECK: host-program-symbolic-invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op native code with symbolic sizes is not supported by this code generator: 'func.func' attribute 'function_type' has a symbolic size
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
