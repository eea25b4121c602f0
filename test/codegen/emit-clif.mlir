// RUN: env AOT_LANES8=0 aot-opt %s --emit=clif | FileCheck %s
// RUN: env AOT_LANES8=0 aot-opt %s --emit=asm | FileCheck %s --check-prefix=ASM
// RUN: env AOT_LANES8=0 aot-opt %s --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse,plan-memory))' --emit=clif | FileCheck %s
// RUN: env AOT_LANES8=0 aot-opt %s --pass-pipeline='builtin.module(func.func(lower-to-loops{host-kernels=false},fuse,plan-memory))' --emit=clif | FileCheck %s --check-prefix=ROWS

/// (The four-lane loops alone, without the eight-lane helpers' strips on
/// CPUs that have them: emit-clif-lanes8.mlir checks those.)

/// Each kernel is a Cranelift function `(buffers, lo, hi) -> status` whose
/// outermost parallel loop runs lo..hi; the fused elementwise chain is one
/// kernel, its inner loop vectorized four f32 lanes wide with a scalar
/// remainder; `exp` is one polynomial on the lanes and in the remainder
/// (no libm call, so no element's value depends on which loop reached
/// it). --emit=asm shows the machine code.
// CHECK:       ; function @scale_shift
// CHECK:       ; kernel exp_{{[0-9]+}}
// CHECK:       function u0:0(i64, i64, i64) -> i32
// CHECK:         load.f32x4
// CHECK:         fmul
// CHECK:         fadd
// CHECK:         store {{.*}}
// CHECK:         load.f32 {{.*}}
// CHECK-NOT:     call
// CHECK:         return
// CHECK-NOT:   ; kernel
// ASM:         ; function @scale_shift
// ASM:         ; kernel exp_{{[0-9]+}}
// ASM-DAG:     mulps
// ASM-DAG:     addps
// ASM-DAG:     ret

/// A mask of i1 bytes joins the lanes four bytes at a time (widened to a
/// lane mask); a broadcast scalar (stride 0) is one load per iteration.
// CHECK:       ; function @masked_scale
// CHECK:       ; kernel
// CHECK:         load.i32
// CHECK:         uwiden_low
// CHECK:         uwiden_low
// CHECK:         load.f32 {{.*}}
// CHECK:         splat.f32x4

/// A reduction over outer dimensions vectorizes along the kept,
/// unit-stride dimension: the nested reduction loops carry one f32x4 of
/// column sums (no horizontal fold), stored four columns at a time.
// CHECK:       ; function @column_sum
// CHECK:       ; kernel sum_{{[0-9]+}}
// CHECK:         splat.f32x4
// CHECK:       block{{[0-9]+}}(v{{[0-9]+}}: i64, v{{[0-9]+}}: f32x4):
// CHECK:         load.f32x4
// CHECK-NEXT:    fadd.f32x4
// CHECK:         store notrap

/// So does one over a middle dimension: every kept loop is independent,
/// so the unit-stride one inside the split loop takes four columns in
/// lanes.
// CHECK:       ; function @middle_sum
// CHECK:       ; kernel sum_{{[0-9]+}}
// CHECK:         splat.f32x4
// CHECK:       block{{[0-9]+}}(v{{[0-9]+}}: i64, v{{[0-9]+}}: f32x4):
// CHECK:         load.f32x4
// CHECK-NEXT:    fadd.f32x4
// CHECK:         store notrap
func.func @scale_shift(%x: tensor<64x100xf32>, %w: tensor<100xf32>, %b: tensor<100xf32>) -> tensor<64x100xf32> {
  %0 = tensor.mul %x, %w : tensor<64x100xf32>, tensor<100xf32> -> tensor<64x100xf32>
  %1 = tensor.add %0, %b : tensor<64x100xf32>, tensor<100xf32> -> tensor<64x100xf32>
  %2 = tensor.exp %1 : tensor<64x100xf32>
  return %2 : tensor<64x100xf32>
}

func.func @masked_scale(%g: tensor<64x100xf32>, %m: tensor<64x100xi1>, %s: tensor<f32>) -> tensor<64x100xf32> {
  %0 = tensor.cast %m : tensor<64x100xi1> -> tensor<64x100xf32>
  %1 = tensor.mul %0, %s : tensor<64x100xf32>, tensor<f32> -> tensor<64x100xf32>
  %2 = tensor.mul %g, %1 : tensor<64x100xf32>, tensor<64x100xf32> -> tensor<64x100xf32>
  return %2 : tensor<64x100xf32>
}

func.func @column_sum(%x: tensor<5x7x9xf32>) -> tensor<9xf32> {
  %s = tensor.sum %x {dims = [0, 1]} : tensor<5x7x9xf32> -> tensor<9xf32>
  return %s : tensor<9xf32>
}

func.func @middle_sum(%x: tensor<4x7x9xf32>) -> tensor<4x9xf32> {
  %s = tensor.sum %x {dims = [1]} : tensor<4x7x9xf32> -> tensor<4x9xf32>
  return %s : tensor<4x9xf32>
}

/// A load of memory the kernel does not write is `readonly can_move`:
/// Cranelift places it at its use like arithmetic (the gathers below).
/// Loads and stores that are not unit-stride gather and scatter their
/// four lanes one element at a time (a slice with a step of 3; the
/// scatter's region), the arithmetic still in lanes; a step of 2 loads two
/// vectors (elements 0..3 and 3..6) and shuffles every other lane out of
/// them; the unit-stride side moves whole vectors.
// CHECK:       ; function @strided
// CHECK:       ; kernel exp_{{[0-9]+}}
// CHECK:         load.f32 {{.*}}
// CHECK:         scalar_to_vector.f32x4
// CHECK-COUNT-3: insertlane
// CHECK:         store {{.*}}
// CHECK:         load.f32x4 notrap readonly can_move [[P:v[0-9]+]]{{$}}
// CHECK-NEXT:    load.f32x4 notrap readonly can_move [[P]]+12
// CHECK:         shuffle {{.*}}, {{.*}}, 0x1f1e1d1c171615140b0a090803020100
// CHECK:         store {{.*}}
// CHECK:       ; kernel copy_{{[0-9]+}}
// CHECK-NOT:     extractlane
// CHECK:       ; kernel copy_{{[0-9]+}}
// CHECK:         load.f32x4
// CHECK-COUNT-4: extractlane

/// A row reduction keeps its lanes in the inner, unit-stride loop: lanes
/// across rows would gather every load.
// CHECK:       ; function @row_sum
// CHECK:       ; kernel sum_{{[0-9]+}}
// CHECK-NOT:     insertlane v{{[0-9]+}}, v{{[0-9]+}}, 3
// CHECK:         load.f32x4
// CHECK-NOT:     insertlane v{{[0-9]+}}, v{{[0-9]+}}, 3
func.func @strided(%x: tensor<64x100xf32>, %z: tensor<64x100xf32>) -> (tensor<64x50xf32>, tensor<64x100xf32>, tensor<64x34xf32>) {
  %t = view.slice %x {dim = 1, start = 0, end = 100, step = 3} : tensor<64x100xf32> -> tensor<64x34xf32>
  %f = tensor.exp %t : tensor<64x34xf32>
  %s = view.slice %x {dim = 1, start = 0, end = 100, step = 2} : tensor<64x100xf32> -> tensor<64x50xf32>
  %e = tensor.exp %s : tensor<64x50xf32>
  %r = view.slice_scatter %z, %e {dim = 1, start = 1, end = 100, step = 2} : tensor<64x100xf32>, tensor<64x50xf32> -> tensor<64x100xf32>
  return %e, %r, %f : tensor<64x50xf32>, tensor<64x100xf32>, tensor<64x34xf32>
}

func.func @row_sum(%x: tensor<64x100xf32>) -> tensor<64xf32> {
  %s = tensor.sum %x {dims = [1]} : tensor<64x100xf32> -> tensor<64xf32>
  return %s : tensor<64xf32>
}

/// Masks are lanes too: a comparison's mask narrows to four 0/1 bytes in
/// one store, a select of masks blends them, and a mask stored through a
/// stepped slice goes one byte per lane. (The `where` and the stepped
/// store both read x and y row by row: sibling fusion makes them one
/// kernel, after the copy of z.)
// CHECK:       ; function @masks
// CHECK:       ; kernel copy_{{[0-9]+}}
// CHECK:       ; kernel copy_{{[0-9]+}}
// CHECK:         fcmp
// CHECK:         bitselect
// CHECK:         snarrow
// CHECK:         snarrow
// CHECK:         store {{.*}}
// CHECK:         fcmp
// CHECK-COUNT-4: ireduce.i8
func.func @masks(%x: tensor<3x22xf32>, %y: tensor<3x22xf32>, %c: tensor<3x22xi1>, %z: tensor<3x22xi1>) -> (tensor<3x22xi1>, tensor<3x22xi1>) {
  %m = tensor.gt %x, %y : tensor<3x22xf32>, tensor<3x22xf32> -> tensor<3x22xi1>
  %n = tensor.ne %x, %x : tensor<3x22xf32>, tensor<3x22xf32> -> tensor<3x22xi1>
  %w = tensor.where %c, %m, %n : tensor<3x22xi1>, tensor<3x22xi1>, tensor<3x22xi1> -> tensor<3x22xi1>
  %t = tensor.lt %x, %y : tensor<3x22xf32>, tensor<3x22xf32> -> tensor<3x22xi1>
  %u = view.slice %t {dim = 1, start = 0, end = 22, step = 2} : tensor<3x22xi1> -> tensor<3x11xi1>
  %r = view.slice_scatter %z, %u {dim = 1, start = 0, end = 22, step = 2} : tensor<3x22xi1>, tensor<3x11xi1> -> tensor<3x22xi1>
  return %w, %r : tensor<3x22xi1>, tensor<3x22xi1>
}

/// A kernel that reads back what it stored (softmax's exponentials, stored
/// into the result and summed from there) keeps those loads in order with
/// its stores: only the input's loads are `readonly can_move`.
// CHECK:       ; function @in_place
// CHECK:       ; kernel softmax_{{[0-9]+}}
// CHECK:         load.f32x4 notrap readonly can_move
// CHECK:         store notrap
// CHECK:         load.f32x4 notrap v{{[0-9]+$}}
func.func @in_place(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %y = tensor.softmax %x {dim = 1} : tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

/// bf16 elementwise ops run in lanes too: four halves per load, widened
/// to f32 by a shift; each op's result rounded to bf16 on the lanes (NaN
/// kept quiet: the unordered compare and blend) and narrowed to four halves
/// per store.
// CHECK:       ; function @bf16_axpy
// CHECK:       ; kernel {{[a-z_]+}}_{{[0-9]+}}
// CHECK:         uload16x4
// CHECK:         uload16x4
// CHECK:         fmul
// CHECK:         fcmp uno
// CHECK:         bitselect
// CHECK:         fadd
// CHECK:         unarrow
// CHECK:         store notrap
func.func @bf16_axpy(%x: tensor<64xbf16>, %y: tensor<64xbf16>) -> tensor<64xbf16> {
  %0 = tensor.mul %x, %y : tensor<64xbf16>
  %1 = tensor.add %0, %x : tensor<64xbf16>
  return %1 : tensor<64xbf16>
}

/// A fused multiply-add is one `fma` on four lanes (a broadcast scale
/// splatted), rounded once as PyTorch's `vec::fmadd` is.
// CHECK:       ; function @fused
// CHECK:       ; kernel {{[a-z_]+}}_{{[0-9]+}}
// CHECK:         splat.f32x4
// CHECK-NEXT:    fma
// ASM-LABEL:   ; function @fused
func.func @fused(%x: tensor<64xf32>, %y: tensor<64xf32>, %z: tensor<f32>) -> tensor<64xf32> {
  %0 = tensor.fma %x, %z, %y : tensor<64xf32>, tensor<f32>, tensor<64xf32> -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

/// A test of the column against the row (a causal mask: the column is
/// the vectorized loop's induction variable, the row uniform in it) has
/// lanes: each lane compares its own iteration's index, and the masked
/// scores' maximum runs four columns at a time. (The attention row kernel
/// of a target without the host's fused attention; on the host the whole
/// attention is one library step, no kernel.)
// CHECK:       ; function @causal_attention
// CHECK-NOT:   ; kernel
// ROWS:        ; function @causal_attention
// ROWS:        ; kernel attention_softmax_{{[0-9]+}}
// ROWS:          load.f32x4
// ROWS-COUNT-4:  icmp sgt
// ROWS:          bitselect
// ROWS-NEXT:     fmax.f32x4
func.func @causal_attention(%q: tensor<2x16x8xf32>, %k: tensor<2x16x8xf32>, %v: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %o:2 = tensor.attention %q, %k, %v {causal} : tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32> -> (tensor<2x16x8xf32>, tensor<2x16xf32>)
  return %o#0 : tensor<2x16x8xf32>
}
