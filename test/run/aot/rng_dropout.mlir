// golden: skip (PyTorch's CPU generator is mt19937, not Philox: the values differ by design)

/// rng.dropout under a seed: the kept mask and scaling match eager.
func.func @main(%x: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xi1>) {
  %d:2 = rng.dropout %x {p = 0.3} : tensor<4x5xf32> -> (tensor<4x5xf32>, tensor<4x5xi1>)
  return %d#0, %d#1 : tensor<4x5xf32>, tensor<4x5xi1>
}
