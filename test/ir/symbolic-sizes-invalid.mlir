// RUN: aot-opt %s --split-input-file --verify-diagnostics

// Malformed symbolic sizes, symbols no argument binds, and ops or ranges
// that cannot take them: located errors, never a crash.

// expected-error@+1 {{invalid element type 'sxf32'}}
func.func @no_digits(%x: tensor<sxf32>) -> tensor<4xf32>

// -----

// expected-error@+1 {{invalid size: expected ')' to close a size expression}}
func.func @unclosed_in_array(%x: tensor<4xf32>) -> tensor<4xf32> attributes {aot.s = array<i64: (s0 + 1>}

// -----

// expected-error@+1 {{invalid dimension: expected ')' to close a size expression}}
func.func @unclosed(%x: tensor<(s0x4xf32>) -> tensor<4xf32>

// -----

// expected-error@+1 {{invalid dimension: division of a size by 0: the divisor must be a positive constant}}
func.func @div_zero(%x: tensor<(s0 floordiv 0)xf32>) -> tensor<4xf32>

// -----

// expected-error@+1 {{invalid dimension: symbol s70000 is out of range (s0 .. s65535)}}
func.func @big_symbol(%x: tensor<s70000xf32>) -> tensor<4xf32>

// -----

// expected-error@+1 {{invalid dimension: size expression nested too deeply}}
func.func @deep(%x: tensor<((((((((((((((((((((((((((((((((((s0))))))))))))))))))))))))))))))))))xf32>) -> tensor<4xf32>

// -----

// expected-error@+1 {{invalid dimension: size arithmetic overflows a 64-bit integer}}
func.func @overflow(%x: tensor<(s0*9223372036854775807*2)xf32>) -> tensor<4xf32>

// -----

// expected-error@+1 {{symbol s1 is not bound: a symbol must be the whole size of some argument dimension}}
func.func @unbound(%x: tensor<s0xf32>) -> tensor<s1xf32> {
  %0 = tensor.full {value = 1.0} : tensor<s1xf32>
  return %0 : tensor<s1xf32>
}

// -----

// An expression does not bind its symbols: only a dimension that is
// exactly the symbol does.
// expected-error@+1 {{symbol s0 is not bound}}
func.func @expression_only(%x: tensor<(s0*2)xf32>) -> tensor<(s0*2)xf32> {
  return %x : tensor<(s0*2)xf32>
}

// -----

// expected-error@+1 {{'aot.symbols': the range of s0 must be array<i64: lo, hi> with 2 <= lo <= hi (sizes 0 and 1 are never symbolic)}}
func.func @range_from_one(%x: tensor<s0xf32>) -> tensor<s0xf32> attributes {aot.symbols = {s0 = array<i64: 1, 8>}} {
  return %x : tensor<s0xf32>
}

// -----

// expected-error@+1 {{'aot.guards': guard 's0' has no relation (==, !=, <, <=, >, >=)}}
func.func @bad_guard(%x: tensor<s0xf32>) -> tensor<s0xf32> attributes {aot.guards = ["s0"]} {
  return %x : tensor<s0xf32>
}

// -----

// expected-error@+1 {{symbol s3 is not bound}}
func.func @guard_on_unbound(%x: tensor<s0xf32>) -> tensor<s0xf32> attributes {aot.guards = ["s3 > 4"]} {
  return %x : tensor<s0xf32>
}

// -----

/// Ops whose rules do not compute with symbolic sizes yet refuse them.
func.func @resize(%x: tensor<s0x4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'mut.resize_' op does not support symbolic sizes yet: attribute 'size' has a symbolic size}}
  %0 = mut.resize_ %y {size = array<i64: s0, 4>} : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

/// An index that may be larger than its input: s0 <= 5 is not known.
func.func @gather(%x: tensor<2x5xf32>, %i: tensor<2xs0xi64>) -> tensor<2xs0xf32> {
  // expected-error@+1 {{'tensor.gather' op index size s0 exceeds input size 5 in dimension 1}}
  %0 = tensor.gather %x, %i {dim = 0} : tensor<2x5xf32>, tensor<2xs0xi64> -> tensor<2xs0xf32>
  return %0 : tensor<2xs0xf32>
}

// -----

/// A slice whose length would need `min(3, s0)`: symbols are only known
/// to be at least 2.
func.func @slice_past_least(%x: tensor<s0x4xf32>) -> tensor<3x4xf32> {
  // expected-error@+1 {{slice [0:3:1] of a dimension of symbolic size s0 is not supported yet: its length would need a guard}}
  %0 = view.slice %x {dim = 0, start = 0, end = 3} : tensor<s0x4xf32> -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}

// -----

/// Symbolic split pieces must add up to the dimension for every value of
/// the symbols: `s0 floordiv 2` twice misses the last row of an odd `s0`.
func.func @split_short(%x: tensor<s0x4xf32>) -> tensor<(s0 floordiv 2)x4xf32> {
  // expected-error@+1 {{split sizes [(s0 floordiv 2), (s0 floordiv 2)] must be non-negative and sum to the size of dimension 0 (s0) for every value of the symbols}}
  %p:2 = view.split %x {dim = 0, sizes = array<i64: (s0 floordiv 2), (s0 floordiv 2)>} : tensor<s0x4xf32> -> (tensor<(s0 floordiv 2)x4xf32>, tensor<(s0 floordiv 2)x4xf32>)
  return %p#0 : tensor<(s0 floordiv 2)x4xf32>
}

// -----

/// unbind of a symbolic dimension would have a symbolic number of results.
func.func @unbind(%x: tensor<s0x4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{unbind of a dimension of symbolic size s0 has no fixed number of results}}
  %0:2 = view.unbind %x {dim = 0} : tensor<s0x4xf32> -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0 : tensor<4xf32>
}

// -----

/// A symbolic size in an attribute counts too.
func.func @resize(%x: tensor<s0xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'mut.resize_' op does not support symbolic sizes yet}}
  %0 = mut.resize_ %y {size = array<i64: s0>} : tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

/// Two different symbols do not broadcast: nothing says they are equal.
func.func @distinct(%x: tensor<s0xf32>, %y: tensor<s1xf32>) -> tensor<s0xf32> {
  // expected-error@+1 {{'tensor.add' op}}
  %0 = tensor.add %x, %y : tensor<s0xf32>, tensor<s1xf32> -> tensor<s0xf32>
  return %0 : tensor<s0xf32>
}

// -----

/// A reshape whose inferred size is not an evident quotient.
func.func @reshape(%x: tensor<s0xf32>) -> tensor<s0x4xf32> {
  // expected-error@+1 {{shape [-1, 4] is invalid for input of size s0: 4 does not evidently divide it}}
  %0 = view.reshape %x {shape = array<i64: -1, 4>} : tensor<s0xf32> -> tensor<s0x4xf32>
  return %0 : tensor<s0x4xf32>
}

// -----

/// A result type that disagrees with the rule.
func.func @wrong_result(%x: tensor<s0x4xf32>) -> tensor<(s0*2)xf32> {
  // expected-error@+1 {{'view.reshape' op}}
  %0 = view.reshape %x {shape = array<i64: -1>} : tensor<s0x4xf32> -> tensor<(s0*2)xf32>
  return %0 : tensor<(s0*2)xf32>
}

// -----

/// A symbol passed as a value needs a 0-d integer argument.
// expected-error@+1 {{argument 0 holds symbol s0 ('aot.symbol'), so it must be a 0-d integer tensor}}
func.func @symbol_arg(%n: tensor<2xi64> {aot.symbol = 0}, %g: tensor<f32>) -> tensor<s0xf32> {
  %0 = view.expand %g {shape = array<i64: s0>} : tensor<f32> -> tensor<s0xf32>
  return %0 : tensor<s0xf32>
}

// -----

/// A number in the range that names expressions is refused where it is
/// written: it would alias whatever expression the process interned there.
func.func @made_up_id(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{integer value -9223372036854775800 is reserved (it would name a symbolic size; write sizes as s0, (s0*2), ...)}}
  %0 = view.reshape %x {shape = array<i64: -9223372036854775800>} : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Ceil mode drops a last window that would start in the right padding,
// which depends on the size when padding + stride exceeds the window.
func.func @ceil_pool_needs_guard(%x: tensor<1x1xs0xf32>) -> tensor<1x1x(s0 floordiv 2 + 1)xf32> {
  // expected-error@+1 {{pooling spatial dimension 0 of symbolic size s0 in ceil mode, where the last window may start in the padding: that needs a guard}}
  %0 = tensor.avg_pool %x {kernel_size = [2], stride = [2], padding = [1], ceil_mode} : tensor<1x1xs0xf32> -> tensor<1x1x(s0 floordiv 2 + 1)xf32>
  return %0 : tensor<1x1x(s0 floordiv 2 + 1)xf32>
}

// -----

// A size is settled to a constant only by a guard that pins it
// (test/symbolic/pinned_by_guard.mlir has the guard): without one, the
// strided conv's map is its rule's expression, not 1.
func.func @pinned_without_a_guard(%x: tensor<s0x3xs1xs1xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<s0x4x1x1xf32> {
  // expected-error@+1 {{inferred type(s) 'tensor<s0x4x((s1 + 15) floordiv 16)x((s1 + 15) floordiv 16)xf32>' are incompatible with return type(s) of operation 'tensor<s0x4x1x1xf32>'}}
  %c = tensor.conv %x, %w, %b {padding = [1, 1], stride = [16, 16]} : tensor<s0x3xs1xs1xf32>, tensor<4x3x3x3xf32>, tensor<4xf32> -> tensor<s0x4x1x1xf32>
  return %c : tensor<s0x4x1x1xf32>
}
