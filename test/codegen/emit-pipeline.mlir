// RUN: aot-opt %s --pass-pipeline='builtin.module(aot-inference)' --emit=clif --print-ir-after=plan-memory --pass-statistics --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s

// --emit=clif lowers through the codegen pipeline under the same pass
// manager instrumentation as the main pipeline: it is printed with
// --dump-pass-pipeline, --print-ir-after sees its passes, and
// --pass-statistics reports them.

// CHECK: Pass Manager with builtin.module(
// CHECK: Pass Manager with func.func(protect-reads,lower-to-loops,fuse{target=cranelift},collapse-loops,plan-memory)
// CHECK: IR Dump After PlanMemory (plan-memory)
// CHECK: func.func @f(%arg0: memref<64xf32>) -> memref<64xf32>
// CHECK:   loop.kernel "mul_1"
// CHECK:     loop.exp
// CHECK:     loop.mul
// CHECK: Pass statistics report
// CHECK: Functionalize
// CHECK: Pass statistics report
// CHECK: LowerToLoops
// CHECK:   (S) 2 num-kernels
// CHECK: Fuse
// CHECK:   (S) 1 num-inlined
func.func @f(%x: tensor<64xf32>) -> tensor<64xf32> {
  %0 = tensor.exp %x : tensor<64xf32>
  %1 = tensor.mul %0, %x : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
