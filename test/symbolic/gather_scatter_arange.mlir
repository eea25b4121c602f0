// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX).
func.func @f(%x: tensor<s0x5xf32>, %i: tensor<s0x3xi64>, %src: tensor<s0x3xf32>) -> (tensor<s0x3xf32>, tensor<s0x5xf32>, tensor<s0xi64>, tensor<(s0*2)xf32>) {
  %g = tensor.gather %x, %i {dim = 1} : tensor<s0x5xf32>, tensor<s0x3xi64> -> tensor<s0x3xf32>
  %s = tensor.scatter_add %x, %i, %src {dim = 1} : tensor<s0x5xf32>, tensor<s0x3xi64>, tensor<s0x3xf32> -> tensor<s0x5xf32>
  %a = tensor.arange {start = 1.0, step = 3.0} : tensor<s0xi64>
  %b = tensor.arange {step = 0.5} : tensor<(s0*2)xf32>
  return %g, %s, %a, %b : tensor<s0x3xf32>, tensor<s0x5xf32>, tensor<s0xi64>, tensor<(s0*2)xf32>
}
