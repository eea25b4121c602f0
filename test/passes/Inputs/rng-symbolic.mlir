// Used by rng-functionalize-invalid.mlir.

/// A random op whose size is symbolic draws a number of words that only a
/// call knows; the offsets after it would be run-time expressions.
func.func @symbolic(%x: tensor<s0xf32>) -> tensor<s0xf32> {
  // expected-error@+1 {{'rng.uniform' op a random op with symbolic sizes (tensor<s0xf32>) is not supported by rng-functionalize yet}}
  %0 = rng.uniform {low = 0.0, high = 1.0} : tensor<s0xf32>
  return %0 : tensor<s0xf32>
}
