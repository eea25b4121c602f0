// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(cse,dce))' --print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(cse,dce))' --print-ir-before=dce -o /dev/null 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(cse,dce,cse))' --print-ir-after-change -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHANGE
// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(cse,dce))' --print-ir-after=dce -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER

// ALL:      // -----// IR Dump After CSE (cse) //----- //
// ALL-NEXT: func.func @f
// ALL:      tensor.mul
// ALL-NOT:  tensor.mul
// ALL:      // -----// IR Dump After DCE (dce) //----- //

// BEFORE-NOT: IR Dump Before CSE
// BEFORE:     // -----// IR Dump Before DCE (dce) //----- //
// BEFORE:     tensor.constant
// BEFORE-NOT: IR Dump

/// The second cse changes nothing, so it is not printed.
// CHANGE:     IR Dump After CSE (cse)
// CHANGE:     IR Dump After DCE (dce)
// CHANGE-NOT: IR Dump After CSE

// AFTER-NOT: IR Dump After CSE
// AFTER:     IR Dump After DCE (dce)
// AFTER-NOT: tensor.constant

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %x : tensor<4xf32>
  %1 = tensor.mul %x, %x : tensor<4xf32>
  %c = tensor.constant dense<1.0> : tensor<4xf32>
  %2 = tensor.add %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
