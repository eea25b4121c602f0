// Reproducer panic_capacity_overflow_run_mod_rs_423_random_inputs_huge_type:
// a tensor type of 2^62+1 i64 elements (its byte size overflows i64) reached
// input generation. Such a type is invalid where it is written.

// RUN: not aot-run %s --random-inputs 654 2>&1 | FileCheck %s
// RUN: not aot-opt %s 2>&1 | FileCheck %s

// CHECK: ir-huge-type-random-inputs.mlir:[[# @LINE + 1]]:21: error: invalid type 'tensor<4611686018427387905xi64>': its size in bytes overflows a 64-bit integer
func.func @main(%a: tensor<4611686018427387905xi64>, %b: tensor<4611686018427387905xi64>) -> tensor<4611686018427387905xi64> {
  %0 = tensor.pow %a, %b : tensor<4611686018427387905xi64>
  return %0 : tensor<4611686018427387905xi64>
}
