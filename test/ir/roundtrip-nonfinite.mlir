// Non-finite floats print as `inf`, `-inf` and `nan` and parse back, in
// float arrays and dense literals (aot-fuzz found `array<f64: 1e999>`
// printed as `inf`, which did not re-parse).
// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s | aot-opt | FileCheck %s
// CHECK: t.a = array<f64: inf, -inf, 2.5, nan>
// CHECK: t.c = dense<[inf, 0.0]> : tensor<2xf32>
// CHECK: dense<[nan, -inf]> : tensor<2xf64>
// CHECK: dense<nan> : tensor<2xf32>
func.func @s() attributes {t.a = array<f64: 1e999, -1e999, 2.5, nan>, t.c = dense<[1e999, 0.0]> : tensor<2xf32>} {
  %0 = tensor.constant dense<[nan, -inf]> : tensor<2xf64>
  %1 = tensor.constant dense<NaN> : tensor<2xf32>
  return
}
