// Reproducer panic_capacity_overflow_tensor_rs_213_aot_train_huge_type:
// block arguments of 2^62 f32 elements (2^64 bytes) reached the training
// pipeline. The type is rejected where it is written, in every form.

// RUN: not aot-opt %s --pass-pipeline='builtin.module(aot-train)' 2>&1 | FileCheck %s
// RUN: not aot-opt %s --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT

// CHECK: ir-huge-type-aot-train.mlir:[[# @LINE + 3]]:15: error: invalid type 'tensor<4611686018427387904xf32>': its size in bytes overflows a 64-bit integer
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: tensor<4611686018427387904xf32>, %arg1: tensor<4611686018427387904xf32>):
    %0 = "mut.set_"(%arg0, %arg1) {aot.no_grad} : (tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>) -> tensor<4611686018427387904xf32>
    "func.return"(%0) : (tensor<4611686018427387904xf32>) -> ()
  }) {function_type = (tensor<4611686018427387904xf32>, tensor<4611686018427387904xf32>) -> tensor<4611686018427387904xf32>, sym_name = "main"} : () -> ()
}) : () -> ()

// -----

// The element count itself overflows i64.
// SPLIT: ir-huge-type-aot-train.mlir:[[# @LINE + 1]]:21: error: invalid type 'tensor<4611686018427387905x4xf32>': its element count overflows a 64-bit integer
func.func @main(%a: tensor<4611686018427387905x4xf32>) {
  return
}

// -----

// i8 elements: 2^62 bytes is representable, so the type is valid.
func.func @ok(%a: tensor<4611686018427387904xi8>) -> tensor<4611686018427387904xi8> {
  return %a : tensor<4611686018427387904xi8>
}

// -----

// SPLIT: ir-huge-type-aot-train.mlir:[[# @LINE + 1]]:21: error: invalid type 'memref<4x4xf32, strided<[4611686018427387904, 1], offset: 0>>': its strided layout addresses elements beyond the 64-bit range
func.func @main(%a: memref<4x4xf32, strided<[4611686018427387904, 1]>>) {
  return
}
