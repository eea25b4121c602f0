// Reproducer wrong_roundtrip_loop_constant_i1_from_argmax_lowering: lowering
// `argmax` printed `loop.constant 1 : i1`, which the parser rejected. i1
// constants print as `true`/`false`, as MLIR does, and every form re-parses
// to the same IR (custom and generic).

// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(lower-to-loops))' > %t.lowered
// RUN: FileCheck %s --check-prefix=LOWERED < %t.lowered
// RUN: aot-opt %t.lowered > %t.again
// RUN: diff %t.lowered %t.again
// RUN: aot-opt %t.lowered --print-generic | FileCheck %s --check-prefix=GENERIC
// RUN: aot-opt %t.lowered --print-generic | aot-opt > %t.generic
// RUN: diff %t.lowered %t.generic

// LOWERED: loop.constant true{{$}}
// LOWERED: loop.xor %{{.*}}, %{{.*}} : i1
// GENERIC: "loop.constant"() {value = 1 : i1} : () -> i1

func.func @main(%x: tensor<3x4xf32>) -> tensor<4xi64> {
  %0 = tensor.argmax %x {dim = 0} : tensor<3x4xf32> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// RUN: aot-opt %S/Inputs/loop-constant-i1.mlir | FileCheck %s --check-prefix=FORMS
// FORMS: %0 = loop.constant true
// FORMS-NEXT: %1 = loop.constant false
// FORMS-NEXT: %2 = loop.constant true
// FORMS-NEXT: %3 = loop.constant 1 : i8
