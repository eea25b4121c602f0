// Inputs aot-fuzz found (minimized), each a clear error now.
// RUN: aot-opt %s --split-input-file --verify-diagnostics

// view.split summed its sizes without overflow checks.
func.func @split(%x: tensor<2x5xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{split sizes [9223372036854775807, 2, 1] must be non-negative and sum to the size of dimension 1 (5)}}
  %r:3 = view.split %x {dim = -1, sizes = [9223372036854775807, 2, 1]} : tensor<2x5xf32> -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x1xf32>)
  return %r#0 : tensor<2x2xf32>
}

// -----

// An integer arange whose values leave i64 wrapped silently.
func.func @arange() -> tensor<4xi64> {
  // expected-error@+1 {{start 1e99 and step 6.0 do not give whole numbers within the range of i64}}
  %0 = tensor.arange {start = 1.0e99, step = 6} : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// A fractional step cannot make integers either.
func.func @arange_fraction() -> tensor<4xi64> {
  // expected-error@+1 {{start 0.0 and step 0.5 do not give whole numbers within the range of i64}}
  %0 = tensor.arange {start = 0, step = 0.5} : tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// unbind makes one result per slice; a 2^32-slice unbind allocated its
// layouts before comparing them with the op's one result.
func.func @unbind_huge(%x: tensor<4294967296xf32>) {
  // expected-error@+1 {{'view.unbind' op the results of unbind needs 377957122048 bytes, more than the allocation limit}}
  %r = view.unbind %x : tensor<4294967296xf32> -> tensor<f32>
  return
}
