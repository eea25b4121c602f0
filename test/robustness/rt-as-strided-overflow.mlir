// Reproducers panic_buffer_rs_103_as_strided__stride_overflow_eager and
// panic_buffer_rs_190_as_strided__stride_overflow_compiled: an as_strided
// layout whose extent does not fit 64 bits is a located error in every mode.
// RUN: not aot-run %s --entry meta --random-inputs 3 2>&1 | FileCheck %s --check-prefix=META
// RUN: not aot-run %s --entry meta --random-inputs 3 --mode compiled 2>&1 | FileCheck %s --check-prefix=META
// RUN: not aot-run %s --entry meta --random-inputs 3 --mode compiled --backend interp 2>&1 | FileCheck %s --check-prefix=META
// META: rt-as-strided-overflow.mlir:10:3: error: 'mut.as_strided_' op a view with size [4], stride [4611686018427387904] and offset 0 addresses elements beyond the 64-bit range
func.func @meta(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = tensor.clone %x : tensor<4xf32>
  %v = mut.as_strided_ %c {size = [4], stride = [4611686018427387904], offset = 0} : tensor<4xf32> -> tensor<4xf32>
  return %v : tensor<4xf32>
}
