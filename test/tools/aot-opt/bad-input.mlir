// RUN: not aot-opt %s.does-not-exist 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not aot-opt %s --emit=frob 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not aot-opt %s --verify-diagnostics 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: not aot-opt %s --emit=asm --backend=frob 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not aot-opt %s --emit=llvm 2>&1 | FileCheck %s --check-prefix=NO-LLVM
// RUN: not aot-opt %s --emit=ptx --gpu-arch=sm_90 2>&1 | FileCheck %s --check-prefix=NO-CUDA

// MISSING: aot-opt: error: could not open input file '{{.*}}bad-input.mlir.does-not-exist'
// EMIT: aot-opt: error: unknown --emit kind 'frob' (available: ir, dot, dot-partition, clif, clif-opt, asm, llvm, ptx, mlir)
// BACKEND: aot-opt: error: unknown --backend 'frob' (available: cranelift, llvm)
/// The lit suite runs the default build, which has no LLVM backend: asking
/// for its output names the cargo feature that adds it.
// NO-LLVM: aot-opt: error: --emit=llvm needs the LLVM backend, which this build of aot-opt lacks (build it with the cargo feature `llvm`)
// NO-CUDA: aot-opt: error: --emit=ptx needs the CUDA backend, which this build of aot-opt lacks (build it with the cargo feature `cuda`)

/// With --verify-diagnostics, a diagnostic nobody expected is a failure, and
/// so is an expectation nothing produced.
// VERIFY: error: unexpected error: use of undeclared SSA value name '%y'
// VERIFY: error: expected error "something else" was not produced

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{something else}}
  %0 = tensor.add %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}
