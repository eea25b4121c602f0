// RUN: not aot-run %s --random-inputs 1 --sizes s0=3 2>&1 | FileCheck %s --check-prefix=EAGER
// RUN: not aot-run %s --mode compiled --random-inputs 1 --sizes s0=3 2>&1 | FileCheck %s --check-prefix=COMPILED

/// Merging a transposed pair of dimensions is no view for any size: eager
/// (at the call's sizes) gives PyTorch's error, a compile (over the
/// symbols) refuses it.
// EAGER: error: 'view.view' op view size is not compatible with input tensor's size and stride
// COMPILED: error: 'view.view' op a view with symbolic sizes of a non-contiguous tensor whose strides cannot express it for every value of its symbols is not supported
func.func @merge(%x: tensor<s0x4xf32>) -> tensor<(s0*4)xf32> {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<s0x4xf32> -> tensor<4xs0xf32>
  %v = view.view %t {shape = array<i64: (s0*4)>} : tensor<4xs0xf32> -> tensor<(s0*4)xf32>
  return %v : tensor<(s0*4)xf32>
}
