// RUN: aot-opt %s --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file | aot-opt --split-input-file | FileCheck %s
// RUN: aot-opt %s --split-input-file --pass-pipeline='aot-train' | FileCheck %s --check-prefix=TRAIN
// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(protect-reads,lower-to-loops))' | FileCheck %s --check-prefix=LOOPS

/// The functional collectives, each over the process group its `group`
/// names, whose size is a constant of the compile: an all-gather stacks
/// the ranks' tensors along dimension 0, a reduce-scatter and an
/// all-to-all split it into `size` parts.
// CHECK-LABEL: func.func @collectives
// CHECK: dist.all_reduce %arg0 {group = "0", reduce = "sum", size = 2} : tensor<4x3xf32>
// CHECK: dist.all_gather %arg0 {group = "0", size = 2} : tensor<4x3xf32> -> tensor<8x3xf32>
// CHECK: dist.reduce_scatter %arg0 {group = "0", reduce = "avg", size = 2} : tensor<4x3xf32> -> tensor<2x3xf32>
// CHECK: dist.all_to_all %arg0 {group = "0", size = 2} : tensor<4x3xf32>
// CHECK: dist.broadcast %arg0 {group = "0", size = 2, src = 1} : tensor<4x3xf32>
// CHECK: dist.wait
func.func @collectives(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<8x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) {
  %0 = dist.all_reduce %x {group = "0", size = 2, reduce = "sum"} : tensor<4x3xf32> -> tensor<4x3xf32>
  %1 = dist.all_gather %x {group = "0", size = 2} : tensor<4x3xf32> -> tensor<8x3xf32>
  %2 = dist.reduce_scatter %x {group = "0", size = 2, reduce = "avg"} : tensor<4x3xf32> -> tensor<2x3xf32>
  %3 = dist.all_to_all %x {group = "0", size = 2} : tensor<4x3xf32> -> tensor<4x3xf32>
  %4 = dist.broadcast %x {group = "0", size = 2, src = 1} : tensor<4x3xf32> -> tensor<4x3xf32>
  %5 = dist.wait %0 : tensor<4x3xf32> -> tensor<4x3xf32>
  return %5, %1, %2, %3, %4 : tensor<4x3xf32>, tensor<8x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

/// Through the seed stages, `joint` and `partition`: collectives are pure
/// on value-semantics tensors and stay where they are; the backward holds
/// their derivatives, those of the sum of every rank's objective: an
/// all-gather's is a reduce-scatter of sums, a reduce-scatter's an
/// all-gather, an all-reduce's the same all-reduce; the forward saves
/// the operand of the product, not the collectives' results' operands.
// TRAIN-LABEL: func.func @tensor_parallel
// TRAIN:         %[[S:.*]] = dist.all_reduce %arg0 {group = "0", reduce = "sum", size = 2}
// TRAIN:         %[[G:.*]] = dist.all_gather %[[S]] {group = "0", size = 2} : tensor<4x3xf32> -> tensor<8x3xf32>
// TRAIN:         dist.reduce_scatter %{{.*}} {group = "0", reduce = "sum", size = 2} : tensor<8x3xf32> -> tensor<4x3xf32>
// TRAIN-LABEL: func.func @tensor_parallel_backward
// TRAIN:         %[[GG:.*]] = dist.all_gather %{{.*}} {group = "0", size = 2} : tensor<4x3xf32> -> tensor<8x3xf32>
// TRAIN:         %[[GS:.*]] = dist.reduce_scatter %{{.*}} {group = "0", reduce = "sum", size = 2} : tensor<8x3xf32> -> tensor<4x3xf32>
// TRAIN:         %[[GX:.*]] = dist.all_reduce %[[GS]] {group = "0", reduce = "sum", size = 2}
// TRAIN:         return %[[GX]]
func.func @tensor_parallel(%x: tensor<4x3xf32> {aot.requires_grad}, %c: tensor<8x3xf32>) -> tensor<f32> {
  %s = dist.all_reduce %x {group = "0", size = 2, reduce = "sum"} : tensor<4x3xf32> -> tensor<4x3xf32>
  %g = dist.all_gather %s {group = "0", size = 2} : tensor<4x3xf32> -> tensor<8x3xf32>
  %p = tensor.mul %g, %c : tensor<8x3xf32>, tensor<8x3xf32> -> tensor<8x3xf32>
  %r = dist.reduce_scatter %p {group = "0", size = 2, reduce = "sum"} : tensor<8x3xf32> -> tensor<4x3xf32>
  %q = tensor.mul %r, %r : tensor<4x3xf32>, tensor<4x3xf32> -> tensor<4x3xf32>
  %l = tensor.sum %q : tensor<4x3xf32> -> tensor<f32>
  return %l : tensor<f32>
}

// -----

/// Lowered, a collective is one host step over contiguous buffers: a
/// strided operand (a transpose) is copied first, the result is a fresh
/// buffer, and `dist.wait` is its operand.
// LOOPS-LABEL: func.func @lowered
// LOOPS:         %[[T:.*]] = loop.view %arg0 : memref<3x4xf32> -> memref<4x3xf32, strided<[1, 4], offset: 0>>
// LOOPS:         %[[C:.*]] = loop.alloc : memref<4x3xf32>
// LOOPS:         loop.kernel "copy_0"
// LOOPS:         %[[O:.*]] = loop.alloc : memref<8x3xf32>
// LOOPS:         loop.collective %[[C]], %[[O]] {group = "0", kind = "all_gather", size = 2} : memref<4x3xf32>, memref<8x3xf32>
// LOOPS:         return %[[O]]
func.func @lowered(%x: tensor<3x4xf32>) -> tensor<8x3xf32> {
  %t = view.transpose %x {dim0 = 0, dim1 = 1} : tensor<3x4xf32> -> tensor<4x3xf32>
  %g = dist.all_gather %t {group = "0", size = 2} : tensor<4x3xf32> -> tensor<8x3xf32>
  %w = dist.wait %g : tensor<8x3xf32> -> tensor<8x3xf32>
  return %w : tensor<8x3xf32>
}
