// REQUIRES: lanes8
// RUN: aot-opt %s --emit=clif | FileCheck %s
// RUN: env AOT_LANES8=0 aot-opt %s --emit=clif | FileCheck %s --check-prefix=OFF

/// Where the eight-lane helpers run (x86-64 with AVX2 and FMA), a vector
/// loop that computes a polynomial of the math table runs strips of 64
/// iterations first: a stage stores the polynomial's arguments into a
/// 256-byte stack buffer, one call of the helper `(buffer, 64)` replaces
/// them by the values, and the last stage loads them back into the rest of
/// the body; then the four-lane loop and the scalar remainder as before.
/// With AOT_LANES8=0 there are no strips and no calls.
// CHECK:       ; function @gelu
// CHECK:       ; kernel gelu_{{[0-9]+}}
// CHECK:         ss0 = explicit_slot 256, align = 32
// CHECK:         sig0 = (i64, i64) system_v
// CHECK:         stack_addr.i64 ss0
// CHECK:         fmul
// CHECK:         store little
// CHECK:         call fn0({{v[0-9]+}}, {{v[0-9]+}})
// CHECK:         load.f32x4 little
// CHECK:         store notrap
// CHECK:         load.f32x4 notrap readonly
// CHECK:         return
// OFF:         ; kernel gelu_{{[0-9]+}}
// OFF-NOT:     explicit_slot
// OFF-NOT:     call
// OFF:         return
func.func @gelu(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = tensor.gelu %x {approximate = "none"} : tensor<256xf32>
  return %0 : tensor<256xf32>
}

/// Two polynomials in one body: one stage each (two buffers in the slot),
/// then the product.
// CHECK:       ; function @two
// CHECK:       ; kernel {{[a-z]+}}_{{[0-9]+}}
// CHECK:         ss0 = explicit_slot 512, align = 32
// CHECK:         call fn{{[0-9]+}}
// CHECK:         call fn{{[0-9]+}}
// CHECK:         fmul
// CHECK:         return
func.func @two(%x: tensor<512xf32>) -> tensor<512xf32> {
  %a = tensor.exp %x : tensor<512xf32>
  %b = tensor.tanh %x : tensor<512xf32>
  %c = tensor.mul %a, %b : tensor<512xf32>, tensor<512xf32> -> tensor<512xf32>
  return %c : tensor<512xf32>
}

/// A loop of fewer iterations than a strip has none.
// CHECK:       ; function @short
// CHECK:       ; kernel exp_{{[0-9]+}}
// CHECK-NOT:     explicit_slot
// CHECK-NOT:     call
// CHECK:         return
func.func @short(%x: tensor<40xf32>) -> tensor<40xf32> {
  %0 = tensor.exp %x : tensor<40xf32>
  return %0 : tensor<40xf32>
}
