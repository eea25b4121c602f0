// RUN: aot-opt %s --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file | aot-opt --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file --print-generic | aot-opt --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops))' | FileCheck %s --check-prefix=LOOPS
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(aot-train)' | FileCheck %s --check-prefix=JOINT

/// ResNet's max pool: the attributes round-trip; the lowering pads the
/// input with -inf once, then reduces each window's 9 taps in one kernel
/// body, one parallel iteration per plane (8 of them), without the indices
/// when nothing uses them (f32 lanes only); the backward keeps the indices
/// (i64), not the input, and adds the gradient at them.
// CHECK-LABEL: func.func @max_pool
// CHECK: %[[P:.*]]:2 = tensor.max_pool %arg0 {kernel_size = [3, 3], padding = [1, 1], stride = [2, 2]} : tensor<2x4x8x8xf32> -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xi64>)
// CHECK: return %[[P]]#0
// LOOPS-LABEL: func.func @max_pool
// LOOPS: loop.alloc : memref<2x4x9x9xf32>
// LOOPS: loop.kernel "fill_
// LOOPS: loop.constant 0xFFF0000000000000 : f64
// LOOPS: loop.kernel "copy_
// LOOPS: loop.kernel "max_pool_
// LOOPS-NEXT: loop.for %{{.*}} = 0 to 8 parallel
// LOOPS-NOT: i64
// LOOPS-COUNT-9: loop.load {{.*}}memref<2x4x9x9xf32>
// LOOPS-NOT: {{loop.load|i64}}
// LOOPS: return
// JOINT-LABEL: func.func @max_pool_backward
// JOINT-SAME: tensor<2x4x4x4xi64> {aot.saved = 0}
// JOINT: tensor.max_pool_grad %arg1, %arg0 {input_shape = array<i64: 2, 4, 8, 8>}
func.func @max_pool(%x: tensor<2x4x8x8xf32> {aot.requires_grad}) -> tensor<2x4x4x4xf32> {
  %0:2 = tensor.max_pool %x {kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]} : tensor<2x4x8x8xf32> -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xi64>)
  return %0#0 : tensor<2x4x4x4xf32>
}

// -----

/// Average pooling without padding reads the input where it lies (no
/// copy); its gradient is `tensor.avg_pool_grad` with the same attributes,
/// whose own derivative is `tensor.avg_pool` again.
// CHECK-LABEL: func.func @avg_pool
// CHECK: tensor.avg_pool %arg0 {count_include_pad = false, divisor_override = 3, kernel_size = [2]}
// LOOPS-LABEL: func.func @avg_pool
// LOOPS-NOT: loop.kernel "copy_
// LOOPS: loop.kernel "avg_pool_
// LOOPS-COUNT-2: loop.load %arg{{[0-9]+}}[{{.*}}] : memref<1x3x7xf32>
// LOOPS-NOT: loop.load
// LOOPS: return
// JOINT-LABEL: func.func @avg_pool_backward
// JOINT: tensor.avg_pool_grad %arg0 {count_include_pad = false, divisor_override = 3, input_shape = array<i64: 1, 3, 7>, kernel_size = [2]}
func.func @avg_pool(%x: tensor<1x3x7xf32> {aot.requires_grad}) -> tensor<1x3x3xf32> {
  %0 = tensor.avg_pool %x {kernel_size = [2], count_include_pad = false, divisor_override = 3} : tensor<1x3x7xf32> -> tensor<1x3x3xf32>
  return %0 : tensor<1x3x3xf32>
}

// -----

/// The gradient ops carry the input's shape, so their results are inferred.
// CHECK-LABEL: func.func @grads
// CHECK: tensor.max_pool_grad %arg0, %arg1 {input_shape = [1, 2, 4, 5]} : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64> -> tensor<1x2x4x5xf32>
// CHECK: tensor.avg_pool_grad %arg0 {ceil_mode, input_shape = [1, 2, 4, 5], kernel_size = [2, 2], stride = [2, 3]} : tensor<1x2x2x2xf32> -> tensor<1x2x4x5xf32>
// LOOPS-LABEL: func.func @grads
// LOOPS: loop.kernel "max_pool_grad_
// LOOPS: loop.assert
// LOOPS: loop.kernel "avg_pool_grad_
func.func @grads(%g: tensor<1x2x2x2xf32>, %i: tensor<1x2x2x2xi64>) -> (tensor<1x2x4x5xf32>, tensor<1x2x4x5xf32>) {
  %0 = tensor.max_pool_grad %g, %i {input_shape = [1, 2, 4, 5]} : tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64> -> tensor<1x2x4x5xf32>
  %1 = tensor.avg_pool_grad %g {input_shape = [1, 2, 4, 5], kernel_size = [2, 2], stride = [2, 3], ceil_mode} : tensor<1x2x2x2xf32> -> tensor<1x2x4x5xf32>
  return %0, %1 : tensor<1x2x4x5xf32>, tensor<1x2x4x5xf32>
}
