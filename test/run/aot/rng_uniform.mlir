// golden: skip (PyTorch's CPU generator is mt19937, not Philox: the values differ by design)

/// rng.uniform under a seed: compiled (rng-functionalize: philox_uniform of
/// an explicit seed and offset) equals eager bit for bit, and a second call
/// continues the stream.
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %u = rng.uniform {low = -1.0, high = 1.0} : tensor<3x4xf32>
  %0 = tensor.add %x, %u : tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
