// RUN: aot-opt %s | FileCheck %s
// RUN: aot-opt %s | aot-opt | FileCheck %s

// Symbolic sizes: a dimension may be a symbol of the function's argument
// sizes (`s0`) or an integer expression over symbols, written in
// parentheses. Expressions print in one canonical form (terms sorted,
// coefficients last, constants folded), so equal sizes print equal.

/// Symbols and expressions in shapes and in `array<i64: ...>` sizes; the
/// ranges and guards a function declares round-trip.
// CHECK-LABEL: func.func @shapes(
// CHECK-SAME:    %[[X:.*]]: tensor<s0x8xf32>, %{{.*}}: tensor<2xs1x(s0*s1)xf32>)
// CHECK-SAME:    -> (tensor<(s0*8)xf32>, tensor<s0x2x4xf32>)
// CHECK-SAME:    aot.guards = ["(s0 mod 2) == 0"]
// CHECK-SAME:    aot.symbols = {s0 = array<i64: 2, 64>}
// CHECK:         view.reshape %[[X]] {shape = array<i64: -1>} : tensor<s0x8xf32> -> tensor<(s0*8)xf32>
// CHECK:         view.reshape %[[X]] {shape = array<i64: s0, 2, 4>} : tensor<s0x8xf32> -> tensor<s0x2x4xf32>
func.func @shapes(%x: tensor<s0x8xf32>, %y: tensor<2xs1x(s1*s0)xf32>) -> (tensor<(8*s0)xf32>, tensor<s0x2x4xf32>)
    attributes {aot.symbols = {s0 = array<i64: 2, 64>}, aot.guards = ["(s0 mod 2) == 0"]} {
  %0 = view.reshape %x {shape = array<i64: -1>} : tensor<s0x8xf32> -> tensor<(s0 * 8)xf32>
  %1 = view.reshape %x {shape = array<i64: s0, 2, 4>} : tensor<s0x8xf32> -> tensor<s0x2x4xf32>
  return %0, %1 : tensor<(s0*8)xf32>, tensor<s0x2x4xf32>
}

/// Canonical forms: like terms combine, a product's factors sort, floor
/// division and remainder by a constant keep the part they cannot fold.
// CHECK-LABEL: func.func @canonical(
// CHECK-SAME:    tensor<s0xs1xf32>
// CHECK-SAME:    -> (tensor<(s0*3)xf32>, tensor<(s0*s1 + 1)xf32>, tensor<((s0 + 1) floordiv 2)xf32>, tensor<(s0 mod 4)xf32>, tensor<(s0*2 + 1)xf32>)
// CHECK:         tensor.full {value = 0.0{{.*}}} : tensor<(s0*3)xf32>
// CHECK:         tensor.full {value = 0.0{{.*}}} : tensor<(s0*s1 + 1)xf32>
// CHECK:         tensor.full {value = 0.0{{.*}}} : tensor<((s0 + 1) floordiv 2)xf32>
// CHECK:         tensor.full {value = 0.0{{.*}}} : tensor<(s0 mod 4)xf32>
// CHECK:         tensor.full {value = 0.0{{.*}}} : tensor<(s0*2 + 1)xf32>
func.func @canonical(%x: tensor<s0xs1xf32>) -> (tensor<(s0 + s0*2)xf32>, tensor<(1 + s1*s0)xf32>, tensor<((s0 + 1) floordiv 2)xf32>, tensor<((s0 + 8) mod 4)xf32>, tensor<((s0*4 + 2) floordiv 2)xf32>) {
  %0 = tensor.full {value = 0.0} : tensor<(s0*3)xf32>
  %1 = tensor.full {value = 0.0} : tensor<(s0*s1 + 1)xf32>
  %2 = tensor.full {value = 0.0} : tensor<((s0 + 1) floordiv 2)xf32>
  %3 = tensor.full {value = 0.0} : tensor<(s0 mod 4)xf32>
  %4 = tensor.full {value = 0.0} : tensor<(s0*2 + 1)xf32>
  return %0, %1, %2, %3, %4 : tensor<(s0*3)xf32>, tensor<(s0*s1 + 1)xf32>, tensor<((s0 + 1) floordiv 2)xf32>, tensor<(s0 mod 4)xf32>, tensor<(s0*2 + 1)xf32>
}

/// Shape rules over symbols: broadcasting (a symbolic size is never 1),
/// matrix products, reductions, concatenation (sizes add), expansion.
// CHECK-LABEL: func.func @rules(
// CHECK:         tensor.add {{.*}} : tensor<s0x4xf32>, tensor<4xf32> -> tensor<s0x4xf32>
// CHECK:         tensor.matmul {{.*}} : tensor<s0x4xf32>, tensor<4xs1xf32> -> tensor<s0xs1xf32>
// CHECK:         tensor.sum {{.*}} : tensor<s0xs1xf32> -> tensor<s1xf32>
// CHECK:         tensor.cat {{.*}} : tensor<s0x4xf32>, tensor<3x4xf32> -> tensor<(s0 + 3)x4xf32>
// CHECK:         view.expand {{.*}} : tensor<4xf32> -> tensor<s0x4xf32>
// CHECK:         view.transpose {{.*}} : tensor<s0x4xf32> -> tensor<4xs0xf32>
func.func @rules(%x: tensor<s0x4xf32>, %b: tensor<4xf32>, %w: tensor<4xs1xf32>, %c: tensor<3x4xf32>) -> (tensor<s1xf32>, tensor<(s0 + 3)x4xf32>, tensor<s0x4xf32>, tensor<4xs0xf32>) {
  %0 = tensor.add %x, %b : tensor<s0x4xf32>, tensor<4xf32> -> tensor<s0x4xf32>
  %1 = tensor.matmul %0, %w : tensor<s0x4xf32>, tensor<4xs1xf32> -> tensor<s0xs1xf32>
  %2 = tensor.sum %1 {dims = [0]} : tensor<s0xs1xf32> -> tensor<s1xf32>
  %3 = tensor.cat %x, %c {dim = 0} : tensor<s0x4xf32>, tensor<3x4xf32> -> tensor<(s0 + 3)x4xf32>
  %4 = view.expand %b {shape = array<i64: s0, 4>} : tensor<4xf32> -> tensor<s0x4xf32>
  %5 = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<s0x4xf32> -> tensor<4xs0xf32>
  return %2, %3, %4, %5 : tensor<s1xf32>, tensor<(s0 + 3)x4xf32>, tensor<s0x4xf32>, tensor<4xs0xf32>
}
