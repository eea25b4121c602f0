// RUN: aot-opt %s --split-input-file --verify-diagnostics

/// Kernels see buffers only through their block arguments.
func.func @captures(%x: memref<4xf32>) {
  %c = loop.alloc : memref<4xf32>
  loop.kernel "k" (%a = %x : memref<4xf32>) {
    loop.for %i = 0 to 4 {
      // expected-error@+1 {{uses a value defined outside its loop.kernel (pass buffers as kernel operands)}}
      %v = loop.load %c[%i] : memref<4xf32>
      loop.store %v, %a[%i] : memref<4xf32>
    }
  }
  return
}

// -----

func.func @indices(%x: memref<4x4xf32>) {
  loop.kernel "k" (%a = %x : memref<4x4xf32>) {
    loop.for %i = 0 to 4 {
      // expected-error@+1 {{needs 2 indices for a rank-2 memref, got 1}}
      %v = loop.load %a[%i] : memref<4x4xf32>
    }
  }
  return
}

// -----

func.func @yield_types(%x: memref<4xf32>) {
  loop.kernel "k" (%a = %x : memref<4xf32>) {
    %z = loop.constant 0.0 : f32
    %one = loop.constant 1 : i64
    // expected-error@+1 {{loop.yield must yield one value per iter_arg, of its type}}
    %s = loop.for %i = 0 to 4 iter_args(%acc = %z) -> (f32) {
      loop.yield %one : i64
    }
  }
  return
}

// -----

func.func @half_arith(%x: memref<4xbf16>) {
  loop.kernel "k" (%a = %x : memref<4xbf16>) {
    loop.for %i = 0 to 4 {
      %v = loop.load %a[%i] : memref<4xbf16>
      // expected-error@+1 {{operands must be numbers (index, integers or f32/f64)}}
      %w = loop.add %v, %v : bf16
    }
  }
  return
}

// -----

func.func @step(%x: memref<4xf32>) {
  loop.kernel "k" (%a = %x : memref<4xf32>) {
    // expected-error@+1 {{step must be positive}}
    loop.for %i = 0 to 4 step 0 {
    }
  }
  return
}

// -----

func.func @matmul(%a: memref<2x3xf32>, %b: memref<4x5xf32>, %c: memref<2x5xf32>) {
  // expected-error@+1 {{shapes [2, 3] x [4, 5] -> [2, 5] do not form a batched matrix product}}
  loop.matmul %a, %b, %c : memref<2x3xf32>, memref<4x5xf32>, memref<2x5xf32>
  return
}

// -----

func.func @matmul_f16(%a: memref<2x3xf16>, %b: memref<3x5xf16>, %c: memref<2x5xf32>) {
  // expected-error@+1 {{operands must all be f32, all be f64, or bf16 summed into f32}}
  loop.matmul %a, %b, %c : memref<2x3xf16>, memref<3x5xf16>, memref<2x5xf32>
  return
}

// -----

func.func @matmul_bf16_result(%a: memref<2x3xbf16>, %b: memref<3x5xbf16>, %c: memref<2x5xbf16>) {
  // expected-error@+1 {{operands must all be f32, all be f64, or bf16 summed into f32}}
  loop.matmul %a, %b, %c : memref<2x3xbf16>, memref<3x5xbf16>, memref<2x5xbf16>
  return
}

// -----

func.func @view_type(%a: memref<6xf32>) {
  // expected-error@+1 {{changes the element type from f32 to f64}}
  %v = loop.view %a : memref<6xf32> -> memref<3xf64>
  return
}

// -----

func.func @predicate(%a: memref<1xf32>) {
  loop.kernel "k" (%x = %a : memref<1xf32>) {
    %z = loop.constant 0 : index
    %v = loop.load %x[%z] : memref<1xf32>
    // expected-error@+1 {{unknown predicate 'less'}}
    %c = loop.cmp %v, %v {predicate = "less"} : f32 -> i1
  }
  return
}

// -----

func.func @fma_int(%x: memref<4xi64>) {
  loop.kernel "k" (%a = %x : memref<4xi64>) {
    %z = loop.constant 0 : index
    %v = loop.load %a[%z] : memref<4xi64>
    // expected-error@+1 {{operands must be f32 or f64}}
    %f = loop.fma %v, %v, %v : i64
  }
  return
}

// -----

func.func @fma_mixed(%x: memref<4xf32>) {
  loop.kernel "k" (%a = %x : memref<4xf32>) {
    %z = loop.constant 0 : index
    %v = loop.load %a[%z] : memref<4xf32>
    %d = loop.cast %v : f32 -> f64
    // expected-error@+1 {{operands must have the same type}}
    %f = loop.fma %v, %v, %d : f32, f32, f64 -> f32
  }
  return
}

// -----

func.func @attention_shapes(%q: memref<2x3x4xf32>, %k: memref<2x5x4xf32>, %v: memref<2x6x6xf32>, %o: memref<2x3x6xf32>, %l: memref<2x3xf32>) {
  // expected-error@+1 {{shapes [2, 3, 4], [2, 5, 4], [2, 6, 6] -> [2, 3, 6], [2, 3] do not form an attention}}
  loop.attention %q, %k, %v, %o, %l {scale = 1.0} : memref<2x3x4xf32>, memref<2x5x4xf32>, memref<2x6x6xf32>, memref<2x3x6xf32>, memref<2x3xf32>
  return
}

// -----

func.func @attention_f64(%q: memref<3x4xf64>, %k: memref<5x4xf64>, %v: memref<5x6xf64>, %o: memref<3x6xf64>, %l: memref<3xf64>) {
  // expected-error@+1 {{operands must be f32 (the mask f32 or i1)}}
  loop.attention %q, %k, %v, %o, %l {scale = 1.0} : memref<3x4xf64>, memref<5x4xf64>, memref<5x6xf64>, memref<3x6xf64>, memref<3xf64>
  return
}

// -----

func.func @attention_lse_rank(%q: memref<3x4xf32>, %k: memref<5x4xf32>, %v: memref<5x6xf32>, %o: memref<3x6xf32>, %l: memref<3x1xf32>) {
  // expected-error@+1 {{q, k, v, out and the mask must have one rank, lse one less}}
  loop.attention %q, %k, %v, %o, %l {scale = 1.0} : memref<3x4xf32>, memref<5x4xf32>, memref<5x6xf32>, memref<3x6xf32>, memref<3x1xf32>
  return
}

// -----

func.func @attention_scale(%q: memref<3x4xf32>, %k: memref<5x4xf32>, %v: memref<5x6xf32>, %o: memref<3x6xf32>, %l: memref<3xf32>) {
  // expected-error@+1 {{requires attribute 'scale'}}
  loop.attention %q, %k, %v, %o, %l : memref<3x4xf32>, memref<5x4xf32>, memref<5x6xf32>, memref<3x6xf32>, memref<3xf32>
  return
}

// -----

func.func @attention_grad_shapes(%g: memref<3x5xf32>, %q: memref<3x4xf32>, %k: memref<5x4xf32>, %v: memref<5x6xf32>, %o: memref<3x6xf32>, %l: memref<3xf32>, %dq: memref<3x4xf32>, %dk: memref<5x4xf32>, %dv: memref<5x6xf32>) {
  // expected-error@+1 {{the output gradient must be shaped as the output, dq, dk and dv as q, k and v}}
  loop.attention_grad %g, %q, %k, %v, %o, %l, %dq, %dk, %dv {scale = 1.0} : memref<3x5xf32>, memref<3x4xf32>, memref<5x4xf32>, memref<5x6xf32>, memref<3x6xf32>, memref<3xf32>, memref<3x4xf32>, memref<5x4xf32>, memref<5x6xf32>
  return
}

// -----

func.func @attention_grad_mask(%g: memref<3x6xf32>, %q: memref<3x4xf32>, %k: memref<5x4xf32>, %v: memref<5x6xf32>, %o: memref<3x6xf32>, %l: memref<3xf32>, %dq: memref<3x4xf32>, %dk: memref<5x4xf32>, %dv: memref<5x6xf32>, %m: memref<3x4xi1>) {
  // expected-error@+1 {{shapes [3, 4], [5, 4], [5, 6] -> [3, 6], [3] do not form an attention}}
  loop.attention_grad %g, %q, %k, %v, %o, %l, %dq, %dk, %dv, %m {scale = 1.0} : memref<3x6xf32>, memref<3x4xf32>, memref<5x4xf32>, memref<5x6xf32>, memref<3x6xf32>, memref<3xf32>, memref<3x4xf32>, memref<5x4xf32>, memref<5x6xf32>, memref<3x4xi1>
  return
}

// -----

/// A symbolic offset or stride must be non-negative for every value the
/// symbols may take (at least 2 unless the function declares a range).
func.func @symbolic_negative_offset(%x: memref<s0x8xf32>) {
  // expected-error@+1 {{a view needs a non-negative offset and strides}}
  %v = loop.view %x : memref<s0x8xf32> -> memref<2x8xf32, strided<[8, 1], offset: (s0 - 3)>>
  return
}

// -----

/// The same offset is fine where the declared range keeps s0 at least 3.
func.func @symbolic_ranged_offset(%x: memref<s0x8xf32>) attributes {aot.symbols = {s0 = array<i64: 3, 64>}} {
  %v = loop.view %x : memref<s0x8xf32> -> memref<2x8xf32, strided<[8, 1], offset: (s0 - 3)>>
  return
}

// -----

/// Only a loop's trip count may be a run-time size.
func.func @symbolic_lower(%x: memref<s0xf32>) {
  loop.kernel "k" (%a = %x : memref<s0xf32>) {
    // expected-error@+1 {{'lower' and 'step' must be integers (only 'upper' may be a symbolic size)}}
    "loop.for"() ({
    ^bb0(%i: index):
      loop.yield
    }) {lower = s0, upper = s0, step = 1} : () -> ()
  }
  return
}

// -----

func.func @symbolic_arena_offset(%x: memref<s0xf32>) {
  // expected-error@+1 {{arena offset must be a non-negative integer}}
  %o = loop.alloc {offset = s0} : memref<s0xf32>
  return
}

// -----

/// A buffer of symbolic size has no one offset: plan-memory gives it its
/// lifetime, and the host program places it per call.
func.func @symbolic_buffer_at_an_offset(%x: memref<s0xf32>) {
  // expected-error@+1 {{a buffer of symbolic size has no fixed arena offset}}
  %o = loop.alloc {offset = 0} : memref<s0xf32>
  return
}

// -----

func.func @lifetime_backwards(%x: memref<s0xf32>) {
  // expected-error@+1 {{'live' must be two host-op positions [first, last], 0 <= first <= last}}
  %o = loop.alloc {live = array<i64: 3, 1>} : memref<s0xf32>
  return
}

// -----

func.func @lifetime_and_offset() {
  // expected-error@+1 {{placed by an arena offset or by its lifetime ('live'), not both}}
  %o = loop.alloc {live = array<i64: 0, 1>, offset = 0} : memref<4xf32>
  return
}

// -----

/// Ops without symbolic rules refuse symbolic sizes.
func.func @symbolic_resize(%x: memref<s0xf32>) {
  // expected-error@+1 {{'loop.resize' op does not support symbolic sizes yet}}
  %r = loop.resize %x {numel = s0} : memref<s0xf32> -> memref<s0xf32>
  return
}

// -----

/// An attention over symbolic sizes checks its shapes by their
/// expressions (the key's rows s1 against the value's s2).
func.func @symbolic_attention_shapes(%q: memref<s0x4xf32>, %k: memref<s1x4xf32>, %v: memref<s2x6xf32>, %o: memref<s0x6xf32>, %l: memref<s0xf32>) {
  // expected-error@+1 {{do not form an attention}}
  loop.attention %q, %k, %v, %o, %l {scale = 1.0} : memref<s0x4xf32>, memref<s1x4xf32>, memref<s2x6xf32>, memref<s0x6xf32>, memref<s0xf32>
  return
}

// -----

/// A GEMM over symbolic sizes checks its shapes by their expressions.
func.func @symbolic_matmul_shapes(%a: memref<s0x4xf32>, %b: memref<4x4xf32>, %c: memref<s1x4xf32>) {
  // expected-error@+1 {{do not form a batched matrix product}}
  loop.matmul %a, %b, %c : memref<s0x4xf32>, memref<4x4xf32>, memref<s1x4xf32>
  return
}

// -----

/// A symbol no argument binds.
// expected-error@+1 {{symbol s1 is not bound}}
func.func @symbolic_unbound(%x: memref<s0xf32>) {
  %o = loop.alloc : memref<s1xf32>
  return
}

// -----

func.func @static_size(%x: memref<s0xf32>) {
  loop.kernel "k" (%a = %x : memref<s0xf32>) {
    // expected-error@+1 {{the size must be symbolic (a static one is a loop.constant)}}
    %n = loop.size 4
  }
  return
}
