// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
// Random ops over symbolic sizes: each draws at the offset the draws
// before it moved the generator to, an expression of the sizes that the
// call evaluates (`tensor.size_value`); an odd count of normal values
// rounds its draw up to a whole Philox block.
func.func @f(%x: tensor<s0x8xf32>, %p: tensor<s1xf32>) -> (tensor<s0x8xf32>, tensor<s0x8xi1>, tensor<s1xf32>, tensor<s1x3xf32>, tensor<(s0*2 + 1)xf32>) {
  %d:2 = rng.dropout %x {p = 0.25} : tensor<s0x8xf32> -> (tensor<s0x8xf32>, tensor<s0x8xi1>)
  %n = rng.normal {mean = 1.0, std = 0.5} : tensor<(s0*2 + 1)xf32>
  %b = rng.bernoulli %p : tensor<s1xf32>
  %u = rng.uniform {low = -1.0, high = 1.0} : tensor<s1x3xf32>
  %t = tensor.tanh %d#0 : tensor<s0x8xf32>
  return %t, %d#1, %b, %u, %n : tensor<s0x8xf32>, tensor<s0x8xi1>, tensor<s1xf32>, tensor<s1x3xf32>, tensor<(s0*2 + 1)xf32>
}
