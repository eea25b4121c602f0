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

/// Output sizes of convolutions and pooling are expressions; a window fits
/// every size the declared ranges allow (s1, s2 >= 4). Written as the
/// formula gives them, they print canonical: `(s1 - 1) floordiv 2 + 1` is
/// `(s1 + 1) floordiv 2`.
// CHECK-LABEL: func.func @conv_pool(
// CHECK:         tensor.conv {{.*}} -> tensor<s0x4x(s1 - 2)x(s2 - 2)xf32>
// CHECK:         tensor.conv {{.*}} -> tensor<s0x4x((s1 + 1) floordiv 2)x((s2 + 1) floordiv 2)xf32>
// CHECK:         tensor.avg_pool {{.*}} -> tensor<s0x4x((s1 floordiv 2) - 1)x((s2 floordiv 2) - 1)xf32>
func.func @conv_pool(%x: tensor<s0x3xs1xs2xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> (tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>, tensor<s0x4x((s1 - 2) floordiv 2)x((s2 - 2) floordiv 2)xf32>)
    attributes {aot.symbols = {s1 = array<i64: 4, 64>, s2 = array<i64: 4, 64>}} {
  %c = tensor.conv %x, %w, %b : tensor<s0x3xs1xs2xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<s0x4x(s1 - 2)x(s2 - 2)xf32>
  %d = tensor.conv %x, %w, %b {padding = [1, 1], stride = [2, 2]} : tensor<s0x3xs1xs2xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>
  %p = tensor.avg_pool %c {kernel_size = [2, 2], stride = [2, 2]} : tensor<s0x4x(s1 - 2)x(s2 - 2)xf32> -> tensor<s0x4x((s1 - 2) floordiv 2)x((s2 - 2) floordiv 2)xf32>
  return %d, %p : tensor<s0x4x((s1 - 1) floordiv 2 + 1)x((s2 - 1) floordiv 2 + 1)xf32>, tensor<s0x4x((s1 - 2) floordiv 2)x((s2 - 2) floordiv 2)xf32>
}

/// Slices whose length needs no guard: constant bounds within the least
/// size, all but a tail, every second element; a guard makes a division
/// exact for reshape.
// CHECK-LABEL: func.func @slices(
// CHECK:         view.slice {{.*}} : tensor<s0x6xf32> -> tensor<2x6xf32>
// CHECK:         view.slice {{.*}} : tensor<s0x6xf32> -> tensor<(s0 - 1)x6xf32>
// CHECK:         view.slice {{.*}} : tensor<s0x6xf32> -> tensor<((s0 + 1) floordiv 2)x6xf32>
// CHECK:         view.select {{.*}} : tensor<s0x6xf32> -> tensor<6xf32>
// CHECK:         view.reshape {{.*}} : tensor<s0x6xf32> -> tensor<(s0 floordiv 4)x24xf32>
func.func @slices(%x: tensor<s0x6xf32>) -> (tensor<2x6xf32>, tensor<(s0 - 1)x6xf32>, tensor<((s0 + 1) floordiv 2)x6xf32>, tensor<6xf32>, tensor<(s0 floordiv 4)x24xf32>)
    attributes {aot.guards = ["(s0 mod 4) == 0"]} {
  %a = view.slice %x {dim = 0, start = 0, end = 2} : tensor<s0x6xf32> -> tensor<2x6xf32>
  %b = view.slice %x {dim = 0, start = 0, end = -1} : tensor<s0x6xf32> -> tensor<(s0 - 1)x6xf32>
  %c = view.slice %x {dim = 0, start = 0, step = 2} : tensor<s0x6xf32> -> tensor<((s0 + 1) floordiv 2)x6xf32>
  %d = view.select %x {dim = 0, index = -1} : tensor<s0x6xf32> -> tensor<6xf32>
  %e = view.reshape %x {shape = array<i64: -1, 24>} : tensor<s0x6xf32> -> tensor<(s0 floordiv 4)x24xf32>
  return %a, %b, %c, %d, %e : tensor<2x6xf32>, tensor<(s0 - 1)x6xf32>, tensor<((s0 + 1) floordiv 2)x6xf32>, tensor<6xf32>, tensor<(s0 floordiv 4)x24xf32>
}

/// A symbol can also be bound by a 0-d integer argument marked
/// `aot.symbol` (how a backward receives a size none of its tensors has).
// CHECK-LABEL: func.func @symbol_arg(
// CHECK-SAME:    %{{.*}}: tensor<i64> {aot.symbol = 0}
func.func @symbol_arg(%n: tensor<i64> {aot.symbol = 0}, %g: tensor<f32>) -> tensor<s0xf32> {
  %0 = view.expand %g {shape = array<i64: s0>} : tensor<f32> -> tensor<s0xf32>
  return %0 : tensor<s0xf32>
}
