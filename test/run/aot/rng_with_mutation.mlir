// golden: skip (PyTorch's CPU generator is mt19937, not Philox: the values differ by design)

/// A random op feeding an input mutation: x += noise; the write-back and
/// the generator advance both happen after the call.
func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> {
  %u = rng.normal : tensor<6xf32>
  mut.add_ %x, %u : tensor<6xf32>
  %0 = tensor.mul %x, %x : tensor<6xf32>
  return %0 : tensor<6xf32>
}
