// golden: skip (PyTorch's CPU generator is mt19937, not Philox: the values differ by design)

/// Several random ops in one function draw consecutive offsets (normal's
/// odd count rounds its draw up to a multiple of 4); dropout with
/// train = false draws nothing.
func.func @main(%p: tensor<5xf32>, %x: tensor<3xf32>) -> (tensor<7xf32>, tensor<5xf32>, tensor<3xf32>, tensor<2x3xf32>) {
  %n = rng.normal {mean = 1.0, std = 0.5} : tensor<7xf32>
  %b = rng.bernoulli %p : tensor<5xf32>
  %e:2 = rng.dropout %x {train = false} : tensor<3xf32> -> (tensor<3xf32>, tensor<3xi1>)
  %u = rng.uniform : tensor<2x3xf32>
  return %n, %b, %e#0, %u : tensor<7xf32>, tensor<5xf32>, tensor<3xf32>, tensor<2x3xf32>
}
