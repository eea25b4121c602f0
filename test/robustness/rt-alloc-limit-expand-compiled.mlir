// Reproducer hang_expand_2pow40_sum_cranelift: a sum over a 2^40-element
// expand would loop 2^40 times in native code; it is refused up front.
// RUN: not aot-run %s --random-inputs 0 --mode compiled --backend cranelift 2>&1 | FileCheck %s
// CHECK: rt-alloc-limit-expand-compiled.mlir:6:3: error: 'view.expand' op a value of type tensor<1099511627776xf32>
func.func @expand_sum(%x: tensor<1xf32>) -> tensor<f32> {
  %v = view.expand %x {shape = [1099511627776]} : tensor<1xf32> -> tensor<1099511627776xf32>
  %s = tensor.sum %v {dims = []} : tensor<1099511627776xf32> -> tensor<f32>
  return %s : tensor<f32>
}
