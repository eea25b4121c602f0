// Symbolic-size corpus (tests/suite/symbolic.rs calls it at several sizes;
// scripts/check-ptx.py assembles its PTX). PyTorch's `padding="same"` of an
// even kernel: a zero column concatenated after a symbolic length, then a
// convolution. The zero column is written through a view of the
// concatenation at offset s0 with strides (s0 + 1)·4 and s0 + 1: a static
// shape over a symbolic layout.
func.func @f(%x: tensor<2x4xs0xf32>, %w: tensor<6x4x4xf32>, %b: tensor<6xf32>) -> tensor<2x6xs0xf32> {
  %z = tensor.full {value = 0.0} : tensor<2x4x1xf32>
  %p = tensor.cat %x, %z {dim = 2} : tensor<2x4xs0xf32>, tensor<2x4x1xf32> -> tensor<2x4x(s0 + 1)xf32>
  %y = tensor.conv %p, %w, %b {stride = [1], padding = [1], dilation = [1], groups = 1} : tensor<2x4x(s0 + 1)xf32>, tensor<6x4x4xf32>, tensor<6xf32> -> tensor<2x6xs0xf32>
  return %y : tensor<2x6xs0xf32>
}
