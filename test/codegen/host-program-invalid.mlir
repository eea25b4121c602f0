// RUN: not aot-opt %s --split-input-file --emit=clif 2>&1 | FileCheck %s

/// The host program of a lowered function is built only from steps the
/// runtime can run as written: a fused attention reads its operands in
/// blocks while it writes its results, so a result in an operand's buffer
/// is refused, with its location, before any code is generated.
// CHECK: host-program-invalid.mlir:[[# @LINE + 3]]:3: error: 'loop.attention' op an attention's results must have buffers of their own
func.func @main(%q: memref<1x4x8xf32>, %k: memref<1x4x8xf32>, %v: memref<1x4x8xf32>) -> memref<1x4x8xf32> {
  %l = loop.alloc : memref<1x4xf32>
  loop.attention %q, %k, %v, %q, %l {scale = 0.5} : memref<1x4x8xf32>, memref<1x4x8xf32>, memref<1x4x8xf32>, memref<1x4x8xf32>, memref<1x4xf32>
  return %q : memref<1x4x8xf32>
}

// -----

/// A memory plan is checked against the function's own lifetimes before
/// it runs: two temporaries alive at one host op (both operands of the
/// kernel) at overlapping arena bytes are refused (plan-memory never
/// writes this; a hand-written or stale plan could).
// CHECK: host-program-invalid.mlir:[[# @LINE + 3]]:3: error: 'loop.alloc' op arena bytes 64..80 overlap bytes 0..80 of a buffer alive at the same time
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %a = loop.alloc {offset = 0} : memref<20xf32>
  %b = loop.alloc {offset = 64} : memref<4xf32>
  %o = loop.alloc : memref<4xf32>
  loop.kernel "k" (%p = %x : memref<4xf32>, %q = %a : memref<20xf32>, %r = %b : memref<4xf32>, %s = %o : memref<4xf32>) {
    loop.for %i = 0 to 4 {
      %v = loop.load %p[%i] : memref<4xf32>
      loop.store %v, %q[%i] : memref<20xf32>
      loop.store %v, %r[%i] : memref<4xf32>
      %w = loop.load %q[%i] : memref<20xf32>
      loop.store %w, %s[%i] : memref<4xf32>
    }
  }
  return %o : memref<4xf32>
}

// -----

/// A lifetime that is not the buffer's (used from op 1 to op 3 here).
// CHECK: host-program-invalid.mlir:[[# @LINE + 2]]:3: error: 'loop.alloc' op 'live' says host ops 1 to 1, but the buffer is used from 1 to 3
func.func @main(%x: memref<s0xf32>) -> memref<s0xf32> {
  %t = loop.alloc {live = array<i64: 1, 1>} : memref<s0xf32>
  loop.kernel "k" (%p = %x : memref<s0xf32>, %q = %t : memref<s0xf32>) {
    loop.for %i = 0 to s0 {
      %v = loop.load %p[%i] : memref<s0xf32>
      loop.store %v, %q[%i] : memref<s0xf32>
    }
  }
  %o = loop.alloc : memref<s0xf32>
  loop.kernel "k" (%p = %t : memref<s0xf32>, %q = %o : memref<s0xf32>) {
    loop.for %i = 0 to s0 {
      %v = loop.load %p[%i] : memref<s0xf32>
      loop.store %v, %q[%i] : memref<s0xf32>
    }
  }
  return %o : memref<s0xf32>
}

// -----

/// A result is never in the arena.
// CHECK: host-program-invalid.mlir:[[# @LINE + 2]]:3: error: 'loop.alloc' op a buffer that leaves the function cannot be placed in the arena
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %o = loop.alloc {offset = 0} : memref<4xf32>
  loop.kernel "k" (%p = %x : memref<4xf32>, %q = %o : memref<4xf32>) {
    loop.for %i = 0 to 4 {
      %v = loop.load %p[%i] : memref<4xf32>
      loop.store %v, %q[%i] : memref<4xf32>
    }
  }
  return %o : memref<4xf32>
}

// -----

/// A loop over a symbolic bound from the lowest i64 (fuzz): its trip
/// count, upper - lower, overflows, and so does the kernel's work, which
/// is refused rather than computed with wrapping arithmetic (a panic in a
/// debug build).
// CHECK: host-program-invalid.mlir:[[# @LINE + 3]]:3: error: 'loop.kernel' op the kernel's work overflows
func.func @main(%x: memref<s0xf32>) -> memref<s0xf32> {
  %o = loop.alloc : memref<s0xf32>
  loop.kernel "k" (%a = %x : memref<s0xf32>, %b = %o : memref<s0xf32>) {
    loop.for %i = -9223372036854775808 to s0 {
      %v = loop.load %a[%i] : memref<s0xf32>
      loop.store %v, %b[%i] : memref<s0xf32>
    }
  }
  return %o : memref<s0xf32>
}
