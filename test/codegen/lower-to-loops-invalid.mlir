// RUN: aot-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(lower-to-loops))'

/// Stateful random ops have no compiled form until rng-functionalize makes
/// their state explicit.
func.func @stateful(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{'rng.dropout' op draws from the global generator: run rng-functionalize before lowering to loops}}
  %d:2 = rng.dropout %x {p = 0.5} : tensor<4xf32> -> (tensor<4xf32>, tensor<4xi1>)
  return %d#0 : tensor<4xf32>
}

// -----

/// In-place ops other than trailing argument updates mean the graph was not
/// functionalized.
func.func @not_functional(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.exp %x : tensor<4xf32>
  // expected-error@+1 {{'mut.add_' cannot be lowered to loops (no lowering; is the graph functionalized?)}}
  mut.add_ %e, %y : tensor<4xf32>, tensor<4xf32>
  return %e : tensor<4xf32>
}

// -----

/// A reduction over an empty dimension has no maximum: the verifier
/// raises PyTorch's error before lowering.
func.func @empty_max(%x: tensor<3x0xf32>) -> tensor<3xf32> {
  // expected-error@+1 {{amax(): Expected reduction dim 1 to have non-zero size.}}
  %0 = tensor.amax %x {dims = [1]} : tensor<3x0xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

/// With symbolic sizes, an op whose lowering does not take them is refused
/// by name (a stateful draw, which rng-functionalize would have made
/// explicit).
func.func @symbolic_stateful(%x: tensor<s0x8xf32>) -> tensor<s0x8xf32> {
  // expected-error@+1 {{'rng.uniform' op does not lower to loops with symbolic sizes yet (see docs/dynamic-shapes.md for the ops that do)}}
  %r = rng.uniform : tensor<s0x8xf32>
  return %r : tensor<s0x8xf32>
}

// -----

/// An argmax eager refuses over an empty group: over a size that may be 0
/// at run time, compiled code would return -1 instead, so it is refused.
func.func @symbolic_argmax_maybe_empty(%x: tensor<s0x8xf32>) -> tensor<8xi64> {
  %s = view.slice %x {dim = 0, start = 2, end = 9223372036854775807, step = 1} : tensor<s0x8xf32> -> tensor<(s0 - 2)x8xf32>
  // expected-error@+1 {{'tensor.argmax' op an argmax over the size (s0 - 2), which may be 0}}
  %0 = tensor.argmax %s {dim = 0} : tensor<(s0 - 2)x8xf32> -> tensor<8xi64>
  return %0 : tensor<8xi64>
}
