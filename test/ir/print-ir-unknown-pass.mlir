// `--print-ir-after` and `--print-ir-before` name registered passes; an
// unknown name used to print nothing and exit 0.

// RUN: not aot-opt %s --print-ir-after=nosuch 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER: aot-opt: error: --print-ir-after: 'nosuch' does not refer to a registered pass (see --list-passes)
// RUN: not aot-opt %s --pass-pipeline='builtin.module(cse)' --print-ir-before=nosuch 2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE: aot-opt: error: --print-ir-before: 'nosuch' does not refer to a registered pass (see --list-passes)
// RUN: not aot-opt %s --print-ir-after=aot-train 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: aot-opt: error: --print-ir-after: 'aot-train' does not refer to a registered pass (it is a pass pipeline; name one of its passes)

// A registered pass prints (even one the pipeline does not run prints nothing, without error).
// RUN: aot-opt %s --pass-pipeline='builtin.module(cse)' --print-ir-after=cse 2>&1 | FileCheck %s --check-prefix=KNOWN
// KNOWN: // -----// IR Dump After
// RUN: aot-opt %s --pass-pipeline='builtin.module(cse)' --print-ir-after=canonicalize 2>&1 | FileCheck %s --check-prefix=UNUSED
// UNUSED-NOT: IR Dump
// UNUSED: func.func @f

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
