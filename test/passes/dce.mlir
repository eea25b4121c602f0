// RUN: aot-opt %s --pass-pipeline='builtin.module(func.func(dce))' --split-input-file | FileCheck %s

/// An unused pure op is removed, and so is the chain that only fed it.
// CHECK-LABEL: func.func @dead_chain
// CHECK-NEXT:    return %arg0
func.func @dead_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %x : tensor<4xf32>
  %1 = tensor.add %0, %x : tensor<4xf32>
  %2 = tensor.mul %1, %1 : tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

/// Used ops and the terminator stay.
// CHECK-LABEL: func.func @live
// CHECK-NEXT:    %[[M:.*]] = tensor.mul
// CHECK-NEXT:    return %[[M]]
func.func @live(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = tensor.mul %x, %x : tensor<4xf32>
  %1 = tensor.constant dense<0.0> : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

/// Calls are not known to be pure and stay even when unused.
// CHECK-LABEL: func.func @call_kept
// CHECK:         call @ext
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>
func.func @call_kept(%x: tensor<4xf32>) {
  %0 = func.call @ext(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

/// A loop's effects are those of its body (MemoryEffects::Recursive): a
/// loop that only computes scalars is dead, one that stores is not.
// CHECK-LABEL: func.func @loops
// CHECK:         loop.kernel
// CHECK-COUNT-1:   loop.for
// CHECK-NEXT:        loop.constant
// CHECK-NEXT:        loop.store
func.func @loops(%x: memref<4xf32>) {
  loop.kernel "k" (%a = %x : memref<4xf32>) {
    loop.for %i = 0 to 4 {
      %z = loop.constant 1.0 : f32
      %s = loop.add %z, %z : f32
    }
    loop.for %i = 0 to 4 {
      %z = loop.constant 0.0 : f32
      loop.store %z, %a[%i] : memref<4xf32>
    }
  }
  return
}
