// Reproducers oom_huge_shape_{full,arange,rng_uniform,resize_,expand_sum},
// hang_expand_2pow40_sum_cranelift and oom_emit_asm_materializes_splat_constant_2pow41:
// a value whose logical size exceeds the allocation limit is refused before
// anything is allocated, run or compiled, in every mode, naming its op.
// Views count by their logical size: a sum over a 2^40-element expand would
// loop 2^40 times.

// RUN: not aot-run %s --entry full 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not aot-run %s --entry full --mode compiled --backend interp 2>&1 | FileCheck %s --check-prefix=FULL
// RUN: not aot-run %s --entry full --mode compiled --backend cranelift 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: rt-alloc-limit.mlir:13:3: error: 'tensor.full' op a value of type tensor<1099511627776xf32> needs 4398046511104 bytes, more than the allocation limit
func.func @full() -> tensor<1099511627776xf32> {
  %y = tensor.full {value = 1.0} : tensor<1099511627776xf32>
  return %y : tensor<1099511627776xf32>
}

// RUN: not aot-run %s --entry arange 2>&1 | FileCheck %s --check-prefix=ARANGE
// ARANGE: rt-alloc-limit.mlir:20:3: error: 'tensor.arange' op a value of type tensor<1099511627776xi64> needs 8796093022208 bytes
func.func @arange() -> tensor<1099511627776xi64> {
  %y = tensor.arange {start = 0, step = 1} : tensor<1099511627776xi64>
  return %y : tensor<1099511627776xi64>
}

// RUN: not aot-run %s --entry uniform 2>&1 | FileCheck %s --check-prefix=RNG
// RNG: rt-alloc-limit.mlir:27:3: error: 'rng.uniform' op a value of type tensor<1099511627776xf32>
func.func @uniform() -> tensor<1099511627776xf32> {
  %0 = rng.uniform {low = 0.0, high = 1.0} : tensor<1099511627776xf32>
  return %0 : tensor<1099511627776xf32>
}

// RUN: not aot-run %s --entry resize --random-inputs 0 2>&1 | FileCheck %s --check-prefix=RESIZE
// RESIZE: rt-alloc-limit.mlir:35:3: error: 'mut.resize_' op a value of type tensor<1099511627776xf32>
func.func @resize(%x: tensor<4xf32>) -> tensor<1099511627776xf32> {
  %c = tensor.clone %x : tensor<4xf32>
  %r = mut.resize_ %c {size = [1099511627776]} : tensor<4xf32> -> tensor<1099511627776xf32>
  return %r : tensor<1099511627776xf32>
}

// RUN: not aot-run %s --entry expand_sum --random-inputs 0 2>&1 | FileCheck %s --check-prefix=EXPAND
// EXPAND: rt-alloc-limit.mlir:42:3: error: 'view.expand' op a value of type tensor<1099511627776xf32>
func.func @expand_sum(%x: tensor<1xf32>) -> tensor<f32> {
  %v = view.expand %x {shape = [1099511627776]} : tensor<1xf32> -> tensor<1099511627776xf32>
  %s = tensor.sum %v {dims = []} : tensor<1099511627776xf32> -> tensor<f32>
  return %s : tensor<f32>
}

// The limit is configurable: a 64-byte tensor fails under a 32-byte limit
// and runs under the default.
// RUN: env AOT_MAX_ALLOC_BYTES=32 not aot-run %s --entry small 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: aot-run %s --entry small | FileCheck %s --check-prefix=SMALLOK
// SMALL: error: 'tensor.full' op a value of type tensor<16xf32> needs 64 bytes, more than the allocation limit of 32 bytes (raise it with AOT_MAX_ALLOC_BYTES or --max-alloc-bytes)
// SMALLOK: "outputs"
func.func @small() -> tensor<16xf32> {
  %y = tensor.full {value = 1.0} : tensor<16xf32>
  return %y : tensor<16xf32>
}
