// REQUIRES: cuda
// RUN: not aot-opt %s --emit=ptx 2>&1 | FileCheck %s

/// Loop-level IR may carry symbolic sizes, which the host backends'
/// kernels read from a size table at run time (symbolic-sizes.mlir,
/// symbolic-sizes-llvm.mlir); PTX kernels do not read sizes at run time
/// yet, and a lowered function with a symbolic size is refused, with its
/// location, before any code is generated (the tensor-level path compiles
/// such a function once per size for CUDA).
// CHECK: symbolic-sizes-ptx-invalid.mlir:[[# @LINE + 1]]:1: error: 'func.func' op native code with symbolic sizes is not supported by this code generator: 'func.func' attribute 'function_type' has a symbolic size
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
