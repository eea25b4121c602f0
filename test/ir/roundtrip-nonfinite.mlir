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

// -----

// A non-finite scalar of a half-precision type prints as its own bit
// pattern (aot-fuzz: `loop.constant 1e999 : bf16` printed as f64 bits,
// which made the constant an f64 in the custom form and failed the verifier
// in the generic one); a hexadecimal literal of f16/bf16 is 16 bits.
// RUN: aot-opt %s --split-input-file | FileCheck %s --check-prefix=HALF
// RUN: aot-opt %s --split-input-file --print-generic | aot-opt --split-input-file | FileCheck %s --check-prefix=HALF
// HALF-LABEL: func.func @half
// HALF: loop.constant 0x7F80 : bf16
// HALF: loop.constant 0xFC00 : f16
// HALF: loop.constant 0x7E00 : f16
// HALF: loop.constant 1.0 : f16
// HALF: loop.constant -2.0 : bf16
func.func @half() {
  %0 = loop.constant 1e999 : bf16
  %1 = loop.constant -1e999 : f16
  %2 = loop.constant 0x7E00 : f16
  %3 = loop.constant 0x3C00 : f16
  %4 = loop.constant 0xC000 : bf16
  return
}

