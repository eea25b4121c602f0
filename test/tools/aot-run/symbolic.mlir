// RUN: aot-run %s --inputs %S/Inputs/symbolic-three.json | FileCheck %s --check-prefix=THREE
// RUN: aot-run %s --inputs %S/Inputs/symbolic-five.json | FileCheck %s --check-prefix=FIVE
// RUN: aot-run %s --random-inputs 1 --sizes s0=6 | FileCheck %s --check-prefix=SIX
// RUN: not aot-run %s --inputs %S/Inputs/symbolic-mismatch.json 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not aot-run %s --random-inputs 1 --sizes s0=4 2>&1 | FileCheck %s --check-prefix=GUARD
// RUN: not aot-run %s --random-inputs 1 --sizes s0=7 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not aot-run %s --random-inputs 1 --sizes s0=1 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not aot-run %s --random-inputs 1 2>&1 | FileCheck %s --check-prefix=UNSIZED
// RUN: not aot-run %s --random-inputs 1 --sizes t0=3 2>&1 | FileCheck %s --check-prefix=BADSIZES
// RUN: aot-run %s --mode compiled --backend interp --compile-for %S/Inputs/symbolic-three.json --inputs %S/Inputs/symbolic-five.json | FileCheck %s --check-prefix=FIVE
// RUN: aot-run %s --mode compiled --backend interp --compile-for %S/Inputs/symbolic-five.json --inputs %S/Inputs/symbolic-three.json | FileCheck %s --check-prefix=THREE
// RUN: not aot-run %s --mode compiled --backend interp --compile-for %S/Inputs/symbolic-three.json --inputs %S/Inputs/symbolic-mismatch.json 2>&1 | FileCheck %s --check-prefix=CALLMISMATCH
// RUN: aot-run %s --mode compiled --backend cranelift --compile-for %S/Inputs/symbolic-three.json --inputs %S/Inputs/symbolic-five.json | FileCheck %s --check-prefix=FIVE
// RUN: aot-run %s --mode compiled --compile-for %S/Inputs/symbolic-five.json --inputs %S/Inputs/symbolic-three.json | FileCheck %s --check-prefix=THREE
// RUN: not aot-run %s --mode compiled --compile-for %S/Inputs/symbolic-three.json --inputs %S/Inputs/symbolic-mismatch.json 2>&1 | FileCheck %s --check-prefix=CALLMISMATCH

/// One function serves every size its symbols allow: the interpreter binds
/// s0 from the arguments at each call, checks the range and the guards,
/// and evaluates every symbolic type with it. Compiled (the seed stages,
/// on the interp backend) for one size, it runs at another: the calling
/// convention's guards bind the symbols, and the output that views the
/// argument gets its layout evaluated per call. On a native backend the
/// pipeline also runs once, and code is generated per set of symbol values.
// THREE:      "outputs": [
// THREE:        "data": [
// THREE-NEXT:     3.0,
// THREE-NEXT:     70.0,
// THREE-NEXT:     1100.0
// THREE-NEXT:   ],
// THREE:        "shape": [
// THREE-NEXT:     3
// THREE:        "alias_of_arg": 0,
// THREE:        "shape": [
// THREE-NEXT:     6
// FIVE:       "outputs": [
// FIVE:         "data": [
// FIVE-NEXT:      3.0,
// FIVE-NEXT:      7.0,
// FIVE-NEXT:      11.0,
// FIVE-NEXT:      15.0,
// FIVE-NEXT:      38.0
// FIVE-NEXT:    ],
// FIVE:         "shape": [
// FIVE-NEXT:      5
// FIVE:         "alias_of_arg": 0,
// FIVE:         "shape": [
// FIVE-NEXT:      10
// SIX:        "outputs": [
// SIX:          "shape": [
// SIX-NEXT:       6
// SIX:          "shape": [
// SIX-NEXT:       12

// MISMATCH: error: 'func.func' op argument 1 has size 4 at dimension 0, but the function expects tensor<s0xf32> (s0 = 3)
// GUARD: error: 'func.func' op guard (s0 mod 3) != 1 fails with s0 = 4
// RANGE: error: 'func.func' op argument 0 has size 7 at dimension 0, outside the range [2, 6] of symbol s0
// ONE: aot-run: error: --sizes: s0 = 1: a symbolic size is at least 2
// UNSIZED: aot-run: error: argument 0 has the symbolic size s0 (tensor<s0x2xf32>): give its value with --sizes s0=N
// BADSIZES: aot-run: error: --sizes: 't0' is not a symbol s<N>
// CALLMISMATCH: aot-run: error: argument 1 has size 4 at dimension 0, but the function expects tensor<s0xf32> (s0 = 3)
func.func @f(%x: tensor<s0x2xf32>, %y: tensor<s0xf32>) -> (tensor<s0xf32>, tensor<(s0*2)xf32>)
    attributes {aot.symbols = {s0 = array<i64: 2, 6>}, aot.guards = ["(s0 mod 3) != 1"]} {
  %0 = tensor.sum %x {dims = [1]} : tensor<s0x2xf32> -> tensor<s0xf32>
  %1 = tensor.mul %0, %y : tensor<s0xf32>, tensor<s0xf32> -> tensor<s0xf32>
  %2 = view.reshape %x {shape = array<i64: -1>} : tensor<s0x2xf32> -> tensor<(s0*2)xf32>
  return %1, %2 : tensor<s0xf32>, tensor<(s0*2)xf32>
}
