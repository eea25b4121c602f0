// `--verify-diagnostics` reads `expected-error @+1` with blanks before the
// `@`, as MLIR does (it used to ignore such a comment, so the error it
// announces showed up as unexpected).

// RUN: aot-opt %s --split-input-file --verify-diagnostics
// RUN: not aot-opt %S/Inputs/verify-diagnostics-unmet.mlir --verify-diagnostics 2>&1 | FileCheck %s
// CHECK: verify-diagnostics-unmet.mlir:2:6: error: expected error "never produced" was not produced

func.func @offset(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{use of undeclared SSA value name '%y'}}
  %0 = tensor.add %x, %y : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @above(%x: tensor<f32>) -> tensor<6xf32> {
  %0 = tensor.cat %x, %x {dim = 0} : tensor<f32> -> tensor<6xf32>
  // expected-error  @above {{zero-dimensional tensor (at position 0) cannot be concatenated}}
  return %0 : tensor<6xf32>
}
