// RUN: aot-opt %s | aot-opt | FileCheck %s
// RUN: aot-opt %s --print-generic | aot-opt | FileCheck %s

/// The loop dialect round-trips: host ops (alloc, view, kernel, matmul, attention,
/// collective) and
/// kernel ops (for with iter_args and parallel, load, store, scalars,
/// constants, philox, assert); empty loop.yield terminators are implicit.
// CHECK-LABEL: func.func @softmax_rows
// CHECK:         %[[O:.*]] = loop.alloc : memref<4x8xf32>
// CHECK:         loop.kernel "softmax" (%[[X:.*]] = %arg0 : memref<4x8xf32>, %[[Y:.*]] = %[[O]] : memref<4x8xf32>) {
// CHECK:           loop.for %[[I:.*]] = 0 to 4 parallel {
// CHECK:             %[[NINF:.*]] = loop.constant 0xFF800000 : f32
// CHECK:             %[[M:.*]] = loop.for %[[J:.*]] = 0 to 8 iter_args(%[[A:.*]] = %[[NINF]]) -> (f32) {
// CHECK:               %[[V:.*]] = loop.load %[[X]][%[[I]], %[[J]]] : memref<4x8xf32>
// CHECK:               %[[MX:.*]] = loop.max %[[A]], %[[V]] : f32
// CHECK:               loop.yield %[[MX]] : f32
// CHECK:             loop.for %{{.*}} = 0 to 8 step 2 {
// CHECK:               loop.store %{{.*}}, %[[Y]][%[[I]], %{{.*}}] : memref<4x8xf32>
// CHECK-NEXT:        }
// CHECK-NOT:         loop.yield
// CHECK:         return %[[O]] : memref<4x8xf32>
func.func @softmax_rows(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %o = loop.alloc : memref<4x8xf32>
  loop.kernel "softmax" (%a = %x : memref<4x8xf32>, %b = %o : memref<4x8xf32>) {
    loop.for %i = 0 to 4 parallel {
      %ninf = loop.constant 0xFF800000 : f32
      %m = loop.for %j = 0 to 8 iter_args(%acc = %ninf) -> (f32) {
        %v = loop.load %a[%i, %j] : memref<4x8xf32>
        %n = loop.max %acc, %v : f32
        loop.yield %n : f32
      }
      loop.for %j = 0 to 8 step 2 {
        %v = loop.load %a[%i, %j] : memref<4x8xf32>
        %d = loop.sub %v, %m : f32
        %e = loop.exp %d : f32
        loop.store %e, %b[%i, %j] : memref<4x8xf32>
      }
    }
  }
  return %o : memref<4x8xf32>
}

// CHECK-LABEL: func.func @host
// CHECK:         %[[T:.*]] = loop.view %{{.*}} : memref<2x3xf32> -> memref<3x2xf32, strided<[1, 3], offset: 0>>
// CHECK:         loop.matmul %{{.*}}, %{{.*}}, %{{.*}} {accumulate} : memref<1x3x2xf32, strided<[0, 1, 3], offset: 0>>, memref<1x2x4xf32>, memref<1x3x4xf32>
// CHECK:         loop.matmul %{{.*}}, %{{.*}}, %{{.*}} : memref<3x2xbf16>, memref<2x4xbf16>, memref<3x4xf32>
// CHECK:         %{{.*}} = loop.alloc {offset = 64} : memref<16xi8>
// CHECK:         %[[G:.*]] = loop.alloc : memref<4x3xf32>
// CHECK:         loop.collective %arg0, %[[G]] {group = "0", kind = "all_gather", size = 2} : memref<2x3xf32>, memref<4x3xf32>
// CHECK:         loop.collective %arg0, %{{.*}} {group = "0", kind = "all_reduce", reduce = "avg", size = 2} : memref<2x3xf32>{{$}}
func.func @host(%x: memref<2x3xf32>, %w: memref<1x2x4xf32>, %c: memref<1x3x4xf32>) -> memref<3x2xf32, strided<[1, 3], offset: 0>> {
  %t = loop.view %x : memref<2x3xf32> -> memref<3x2xf32, strided<[1, 3], offset: 0>>
  %b = loop.view %x : memref<2x3xf32> -> memref<1x3x2xf32, strided<[0, 1, 3], offset: 0>>
  loop.matmul %b, %w, %c {accumulate} : memref<1x3x2xf32, strided<[0, 1, 3], offset: 0>>, memref<1x2x4xf32>, memref<1x3x4xf32>
  %ha = loop.alloc : memref<3x2xbf16>
  %hb = loop.alloc : memref<2x4xbf16>
  %hc = loop.alloc : memref<3x4xf32>
  loop.matmul %ha, %hb, %hc : memref<3x2xbf16>, memref<2x4xbf16>, memref<3x4xf32>
  %s = loop.alloc {offset = 64} : memref<16xi8>
  %g = loop.alloc : memref<4x3xf32>
  loop.collective %x, %g {kind = "all_gather", group = "0", size = 2} : memref<2x3xf32>, memref<4x3xf32>
  %r = loop.alloc : memref<2x3xf32>
  loop.collective %x, %r {kind = "all_reduce", group = "0", size = 2, reduce = "avg"} : memref<2x3xf32>, memref<2x3xf32>
  return %t : memref<3x2xf32, strided<[1, 3], offset: 0>>
}

// CHECK-LABEL: func.func @scalars
// CHECK:         loop.philox %{{.*}}, %{{.*}} : i64 -> (i64, i64, i64, i64)
// CHECK:         loop.cmp %{{.*}}, %{{.*}} {predicate = "lt"} : f32 -> i1
// CHECK:         loop.assert %{{.*}} {msg = "index out of range"} : i1
// CHECK:         loop.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK:         loop.cast %{{.*}} : f32 -> bf16
func.func @scalars(%s: memref<1xi64>, %o: memref<4xbf16>) {
  loop.kernel "k" (%sb = %s : memref<1xi64>, %ob = %o : memref<4xbf16>) {
    %z = loop.constant 0 : index
    %seed = loop.load %sb[%z] : memref<1xi64>
    %w:4 = loop.philox %seed, %seed : i64 -> (i64, i64, i64, i64)
    %c256 = loop.constant 256 : i64
    %hi = loop.div %w#0, %c256 : i64
    %f = loop.cast %hi : i64 -> f32
    %half = loop.constant 0.5 : f32
    %lt = loop.cmp %f, %half {predicate = "lt"} : f32 -> i1
    loop.assert %lt {msg = "index out of range"} : i1
    %sel = loop.select %lt, %f, %half : i1, f32, f32 -> f32
    %fused = loop.fma %sel, %f, %half : f32
    %h = loop.cast %fused : f32 -> bf16
    loop.store %h, %ob[%z] : memref<4xbf16>
  }
  return
}

// CHECK-LABEL: func.func @arith
// CHECK:         loop.rem %{{.*}}, %{{.*}} : i64
// CHECK:         loop.shr %{{.*}}, %{{.*}} : i64
// CHECK:         loop.tanh %{{.*}} {exact} : f32
// CHECK:         loop.pow %{{.*}}, %{{.*}} : f32
// CHECK:         loop.tan %{{.*}} : f32
// CHECK:         loop.expm1 %{{.*}} : f32
// CHECK:         loop.ceil %{{.*}} : f32
// CHECK:         loop.trunc %{{.*}} : f32
// CHECK:         loop.round %{{.*}} : f32
// CHECK:         loop.fmod %{{.*}}, %{{.*}} : f32
func.func @arith(%x: memref<8xf32>, %n: memref<8xi64>) {
  loop.kernel "k" (%xb = %x : memref<8xf32>, %nb = %n : memref<8xi64>) {
    loop.for %i = 0 to 8 {
      %v = loop.load %xb[%i] : memref<8xf32>
      %k = loop.load %nb[%i] : memref<8xi64>
      %c3 = loop.constant 3 : i64
      %r = loop.rem %k, %c3 : i64
      %s = loop.shr %k, %c3 : i64
      %a = loop.and %r, %s : i64
      %o = loop.or %a, %k : i64
      %x2 = loop.xor %o, %c3 : i64
      %m = loop.mul %x2, %c3 : i64
      %t = loop.add %m, %k : i64
      %ng = loop.neg %t : i64
      %ab = loop.abs %ng : i64
      loop.store %ab, %nb[%i] : memref<8xi64>
      %e1 = loop.sqrt %v : f32
      %e2 = loop.rsqrt %e1 : f32
      %e3 = loop.log %e2 : f32
      %e4 = loop.log1p %e3 : f32
      %e5 = loop.sin %e4 : f32
      %e6 = loop.cos %e5 : f32
      %e7 = loop.tanh %e6 {exact} : f32
      %e8 = loop.erf %e7 : f32
      %e9 = loop.erfc %e8 : f32
      %e10 = loop.floor %e9 : f32
      %e11 = loop.pow %e10, %v : f32
      %e12 = loop.min %e11, %v : f32
      %e13 = loop.tan %e12 : f32
      %e14 = loop.expm1 %e13 : f32
      %e15 = loop.ceil %e14 : f32
      %e16 = loop.trunc %e15 : f32
      %e17 = loop.round %e16 : f32
      %e18 = loop.fmod %e17, %v : f32
      loop.store %e18, %xb[%i] : memref<8xf32>
    }
  }
  return
}

// CHECK-LABEL: func.func @metadata
// CHECK:         %[[G:.*]] = loop.global {value = dense<[1.0, 2.0]> : tensor<2xf32>} : memref<2xf32>
// CHECK:         loop.rebind %{{.*}}, %[[G]] : memref<3xf32>, memref<2xf32> -> memref<2xf32>
// CHECK:         loop.resize %{{.*}} {numel = 9} : memref<4xf32> -> memref<3x3xf32>
func.func @metadata(%a: memref<3xf32>, %b: memref<4xf32>) {
  %g = loop.global {value = dense<[1.0, 2.0]> : tensor<2xf32>} : memref<2xf32>
  %r = loop.rebind %a, %g : memref<3xf32>, memref<2xf32> -> memref<2xf32>
  %s = loop.resize %b {numel = 9} : memref<4xf32> -> memref<3x3xf32>
  return
}

// CHECK-LABEL: func.func @attention
// CHECK:         loop.attention %arg0, %arg1, %arg2, %{{.*}}, %{{.*}} {scale = 0.5} : memref<2x3x4xf32>, memref<2x5x4xf32>, memref<2x5x6xf32>, memref<2x3x6xf32>, memref<2x3xf32>
// CHECK:         loop.attention %arg0, %arg1, %arg2, %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 0.25} : {{.*}}, memref<2x3x5xi1, strided<[0, 5, 1], offset: 0>>
// CHECK:         loop.attention_grad %{{.*}}, %arg0, %arg1, %arg2, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 0.5} : memref<2x3x6xf32>, memref<2x3x4xf32>, memref<2x5x4xf32>, memref<2x5x6xf32>, memref<2x3x6xf32>, memref<2x3xf32>, memref<2x3x4xf32>, memref<2x5x4xf32>, memref<2x5x6xf32>
func.func @attention(%q: memref<2x3x4xf32>, %k: memref<2x5x4xf32>, %v: memref<2x5x6xf32>, %m: memref<3x5xi1>) {
  %o = loop.alloc : memref<2x3x6xf32>
  %l = loop.alloc : memref<2x3xf32>
  loop.attention %q, %k, %v, %o, %l {scale = 0.5} : memref<2x3x4xf32>, memref<2x5x4xf32>, memref<2x5x6xf32>, memref<2x3x6xf32>, memref<2x3xf32>
  %mb = loop.view %m : memref<3x5xi1> -> memref<2x3x5xi1, strided<[0, 5, 1], offset: 0>>
  loop.attention %q, %k, %v, %o, %l, %mb {causal, scale = 0.25} : memref<2x3x4xf32>, memref<2x5x4xf32>, memref<2x5x6xf32>, memref<2x3x6xf32>, memref<2x3xf32>, memref<2x3x5xi1, strided<[0, 5, 1], offset: 0>>
  %dq = loop.alloc : memref<2x3x4xf32>
  %dk = loop.alloc : memref<2x5x4xf32>
  %dv = loop.alloc : memref<2x5x6xf32>
  loop.attention_grad %o, %q, %k, %v, %o, %l, %dq, %dk, %dv {causal, scale = 0.5} : memref<2x3x6xf32>, memref<2x3x4xf32>, memref<2x5x4xf32>, memref<2x5x6xf32>, memref<2x3x6xf32>, memref<2x3xf32>, memref<2x3x4xf32>, memref<2x5x4xf32>, memref<2x5x6xf32>
  return
}

/// Symbolic sizes: buffer shapes, strides and offsets and a loop's upper
/// bound may be expressions over the function's symbols (bound by its
/// buffer arguments' sizes, as by its tensors' before lowering).
// CHECK-LABEL: func.func @symbolic
// CHECK-SAME:    (%{{.*}}: memref<s0x8xf32>, %{{.*}}: memref<8xf32>) -> memref<s0x8xf32>
// CHECK:         loop.view %{{.*}} : memref<8xf32> -> memref<s0x8xf32, strided<[0, 1], offset: 0>>
// CHECK:         loop.view %{{.*}} : memref<s0x8xf32> -> memref<8xs0xf32, strided<[1, 8], offset: 0>>
// CHECK:         loop.view %{{.*}} : memref<s0x8xf32> -> memref<(s0 - 1)x8xf32, strided<[8, 1], offset: 8>>
// CHECK:         loop.view %{{.*}} : memref<s0x8xf32> -> memref<4xf32, strided<[2], offset: (s0*8 - 8)>>
// CHECK:         loop.alloc : memref<s0x8xf32>
// CHECK:         loop.matmul %{{.*}} : memref<s0x8xf32>, memref<8x8xf32>, memref<s0x8xf32>
// CHECK:         loop.for %{{.*}} = 0 to s0 parallel {
// CHECK:           loop.for %{{.*}} = 0 to 8 {
// CHECK:             loop.load %{{.*}} : memref<s0x8xf32, strided<[0, 1], offset: 0>>
func.func @symbolic(%x: memref<s0x8xf32>, %b: memref<8xf32>) -> memref<s0x8xf32> {
  %bv = loop.view %b : memref<8xf32> -> memref<s0x8xf32, strided<[0, 1], offset: 0>>
  %t = loop.view %x : memref<s0x8xf32> -> memref<8xs0xf32, strided<[1, 8], offset: 0>>
  %r = loop.view %x : memref<s0x8xf32> -> memref<(s0 - 1)x8xf32, strided<[8, 1], offset: 8>>
  %l = loop.view %x : memref<s0x8xf32> -> memref<4xf32, strided<[2], offset: (8*s0 - 8)>>
  %o = loop.alloc : memref<s0x8xf32>
  %mw = loop.alloc : memref<8x8xf32>
  %mp = loop.alloc : memref<s0x8xf32>
  loop.matmul %x, %mw, %mp : memref<s0x8xf32>, memref<8x8xf32>, memref<s0x8xf32>
  loop.kernel "add" (%a = %x : memref<s0x8xf32>, %c = %bv : memref<s0x8xf32, strided<[0, 1], offset: 0>>, %d = %o : memref<s0x8xf32>) {
    loop.for %i = 0 to s0 parallel {
      loop.for %j = 0 to 8 {
        %u = loop.load %a[%i, %j] : memref<s0x8xf32>
        %v = loop.load %c[%i, %j] : memref<s0x8xf32, strided<[0, 1], offset: 0>>
        %w = loop.add %u, %v : f32
        loop.store %w, %d[%i, %j] : memref<s0x8xf32>
      }
    }
  }
  return %o : memref<s0x8xf32>
}

/// `loop.size` reads a symbolic size's value in a kernel.
// CHECK-LABEL: func.func @sizes
// CHECK:         %[[N:.*]] = loop.size (s0*8)
// CHECK:         loop.cast %[[N]] : index -> f32
func.func @sizes(%x: memref<s0x8xf32>, %o: memref<f32>) {
  loop.kernel "count" (%a = %x : memref<s0x8xf32>, %b = %o : memref<f32>) {
    %n = loop.size (8*s0)
    %f = loop.cast %n : index -> f32
    loop.store %f, %b[] : memref<f32>
  }
  return
}
