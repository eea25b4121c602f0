// Reproducer panic_capacity_overflow_program_rs_302_emit_asm_huge_dense: a
// splat constant of 2^62+1 f32 elements reached code generation.

// RUN: not aot-opt %s --pass-pipeline='builtin.module(aot-train)' --emit=asm 2>&1 | FileCheck %s

"builtin.module"() ({
  "func.func"() ({
  // CHECK: ir-huge-dense-emit-asm.mlir:[[# @LINE + 1]]:15: error: invalid type 'tensor<4611686018427387905xf32>': its size in bytes overflows a 64-bit integer
  ^bb0(%arg0: tensor<4611686018427387905xf32>):
    %1 = "tensor.constant"() {value = dense<3.0> : tensor<4611686018427387905xf32>} : () -> tensor<4611686018427387905xf32>
    %2 = "tensor.add"(%arg0, %1) : (tensor<4611686018427387905xf32>, tensor<4611686018427387905xf32>) -> tensor<4611686018427387905xf32>
    "func.return"(%2) : (tensor<4611686018427387905xf32>) -> ()
  }) {function_type = (tensor<4611686018427387905xf32>) -> tensor<4611686018427387905xf32>, sym_name = "main"} : () -> ()
}) : () -> ()

// RUN: not aot-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=DENSE
// -----
// The constant alone, as a dense attribute's type.
// DENSE: ir-huge-dense-emit-asm.mlir:[[# @LINE + 1]]:35: error: invalid type 'tensor<4611686018427387905xf32>': its size in bytes overflows a 64-bit integer
%c = tensor.constant dense<3.0> : tensor<4611686018427387905xf32>
