// RUN: aot-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(lower-to-loops,fuse))' | FileCheck %s

// Producers inlined into an epilogue kernel that writes an argument they
// read: only when every read is of the element written in the same
// iteration (see `same_element_update` in codegen/src/fuse.rs).

/// An elementwise in-place update (x.mul_(t)) is folded into the kernel that
/// writes x: it reads x[i] before it writes x[i]. (t is returned, so it keeps
/// its buffer.)
// CHECK-LABEL: func.func @elementwise_update
// CHECK:         loop.kernel "tanh_0"
// CHECK:         loop.kernel "copy_
// CHECK-SAME:      %arg0
// CHECK:           loop.mul
// CHECK:           loop.store
// CHECK-NOT:     loop.kernel
// CHECK:         return
func.func @elementwise_update(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %t = tensor.tanh %y : tensor<8xf32>
  %m = tensor.mul %x, %t : tensor<8xf32>, tensor<8xf32> -> tensor<8xf32>
  mut.copy_ %x, %m : tensor<8xf32>, tensor<8xf32>
  return %t : tensor<8xf32>
}

// -----

/// x.add_(sigmoid(x)[1]): the broadcast read of element 1 would see x[1]
/// after the loop wrote it, so sigmoid keeps a buffer of its own, computed
/// before the kernel that writes x.
// CHECK-LABEL: func.func @broadcast_read_of_written
// CHECK:         %[[S:.*]] = loop.alloc : memref<3xf32>
// CHECK:         loop.kernel "sigmoid_0"
// CHECK-SAME:      %[[S]]
// CHECK:           loop.exp
// CHECK:         loop.kernel "copy_
// CHECK-NOT:       loop.exp
// CHECK:           loop.store
// CHECK:         return
func.func @broadcast_read_of_written(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = tensor.sigmoid %x : tensor<3xf32>
  %e = view.select %s {dim = 0, index = 1} : tensor<3xf32> -> tensor<f32>
  %a = tensor.add %x, %e : tensor<3xf32>, tensor<f32> -> tensor<3xf32>
  mut.copy_ %x, %a : tensor<3xf32>, tensor<3xf32>
  return %s : tensor<3xf32>
}
