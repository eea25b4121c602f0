// Reproducer oom_huge_shape_resize_, compiled: the grown storage that
// functionalize makes for resize_ is refused before anything is allocated.
// RUN: not aot-run %s --random-inputs 0 --mode compiled --backend cranelift 2>&1 | FileCheck %s
// RUN: not aot-run %s --random-inputs 0 --mode compiled --backend interp 2>&1 | FileCheck %s
// CHECK: rt-alloc-limit-resize-compiled.mlir:8:3: error: {{.*}} bytes, more than the allocation limit
func.func @resize(%x: tensor<4xf32>) -> tensor<1099511627776xf32> {
  %c = tensor.clone %x : tensor<4xf32>
  %r = mut.resize_ %c {size = [1099511627776]} : tensor<4xf32> -> tensor<1099511627776xf32>
  return %r : tensor<1099511627776xf32>
}
